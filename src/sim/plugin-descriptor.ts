import { parse } from 'yaml';
import { readFirstEntry } from '../shared/zip-entry.js';

/** Name and version a plugin jar declares, as text (`version: 1.0` stays "1.0"). */
export interface PluginDescriptor {
  name: string;
  version: string;
  /** Which descriptor file declared them. */
  source: string;
}

export class PluginDescriptorError extends Error {
  override name = 'PluginDescriptorError';
}

/** Paper reads its own descriptor first and falls back to the Bukkit one. */
const descriptorNames = ['paper-plugin.yml', 'plugin.yml'];

function parseDescriptor(source: string, text: string): PluginDescriptor {
  let doc: unknown;
  try {
    // The failsafe schema keeps every scalar a string, so `version: 1.10` is "1.10", not 1.1.
    doc = parse(text, { schema: 'failsafe' });
  } catch (error) {
    throw new PluginDescriptorError(`${source} is not valid YAML (${(error as Error).message})`);
  }
  const fields = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  const version = typeof fields.version === 'string' ? fields.version.trim() : '';
  if (name === '') throw new PluginDescriptorError(`${source} declares no name`);
  if (version === '') throw new PluginDescriptorError(`${source} declares no version`);
  return { name, version, source };
}

export async function readPluginDescriptor(jarPath: string): Promise<PluginDescriptor> {
  const found = await readFirstEntry(jarPath, descriptorNames, (message) => new PluginDescriptorError(message));
  if (!found) throw new PluginDescriptorError(`no ${descriptorNames.join(' or ')} in the jar`);
  return parseDescriptor(found.name, found.text);
}
