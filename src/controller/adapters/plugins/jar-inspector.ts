import { parse } from 'yaml';
import { readFirstEntry } from '../../../shared/zip-entry.js';

/** Why an uploaded jar is refused (`invalid_request`); the message is safe to show. */
export class JarRejectedError extends Error {
  override name = 'JarRejectedError';
}

export interface JarDescriptor {
  /** The declared plugin name, which identifies an uploaded plugin. */
  name: string;
  /** The declared version, as written (`1.0` stays "1.0"). */
  version: string;
  /** The descriptor file it came from. */
  descriptor: string;
}

/** Bukkit's rule for plugin names (Paper enforces it too), capped in length. */
const namePattern = /^[A-Za-z0-9 _.-]{1,64}$/;

/** Descriptors in the order a server of `platform` reads them. */
export function descriptorFiles(platform: string): string[] {
  const own = `${platform.toLowerCase()}-plugin.yml`;
  const yml = own === 'plugin.yml' ? ['plugin.yml'] : [own, 'plugin.yml'];
  return platform.toLowerCase() === 'velocity' ? ['velocity-plugin.json', ...yml] : yml;
}

function declared(fields: Record<string, unknown>, file: string, nameKeys: string[]): JarDescriptor {
  const rawName = nameKeys.map((k) => fields[k]).find((v) => v !== undefined);
  if (typeof rawName !== 'string' || rawName.trim() === '') throw new JarRejectedError(`${file} declares no plugin name`);
  const name = rawName.trim();
  if (!namePattern.test(name)) throw new JarRejectedError(`${file}: the name "${name.slice(0, 80)}" must be 1 to 64 letters, digits, spaces, _ . or -`);
  const version = typeof fields.version === 'string' ? fields.version.trim() : '';
  if (version === '') throw new JarRejectedError(`${file} declares no version`);
  // eslint-disable-next-line no-control-regex
  if (version.length > 64 || /[\x00-\x1f\x7f]/.test(version)) throw new JarRejectedError(`${file}: the version must be at most 64 printable characters`);
  return { name, version, descriptor: file };
}

/** Parses one descriptor's text; YAML scalars stay strings (failsafe schema), aliases are capped. */
export function parseDescriptor(file: string, text: string): JarDescriptor {
  let doc: unknown;
  try {
    doc = file.endsWith('.json') ? JSON.parse(text) : parse(text, { schema: 'failsafe', maxAliasCount: 100, uniqueKeys: false });
  } catch (error) {
    throw new JarRejectedError(`${file} cannot be parsed (${(error as Error).message.split('\n')[0]})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new JarRejectedError(`${file} is not a mapping of fields`);
  // Velocity plugins always have an id and may have a display name; Bukkit-style ones have a name.
  return declared(doc as Record<string, unknown>, file, file.endsWith('.json') ? ['name', 'id'] : ['name']);
}

/** The plugin a jar declares, read within `zipLimits`, for a server of `platform`. */
export async function inspectJar(path: string, platform: string): Promise<JarDescriptor> {
  const wanted = descriptorFiles(platform);
  const found = await readFirstEntry(path, wanted, (message) => new JarRejectedError(message));
  if (!found) throw new JarRejectedError(`the jar has no ${wanted.join(' or ')}`);
  return parseDescriptor(found.name, found.text);
}
