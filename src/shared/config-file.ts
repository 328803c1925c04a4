import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ProgramArgsError, type FlagSpec } from './program-args.js';

/** Settings read from a `--config` file, by long flag name; a value is a string or, for an on/off flag, a boolean. */
export type FileSettings = Record<string, string | boolean>;

/**
 * Reads a YAML `--config` file whose keys are the program's long flags without `--`
 * (`data-dir: /var/lib/cairn`). An unknown key, a value of the wrong shape or a file that does
 * not parse is refused naming it, like a bad flag. An empty value (`key:`) leaves the setting unset.
 */
export function readConfigFile(path: string, specs: Record<string, FlagSpec>, own: string): FileSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ProgramArgsError(`cannot read the config file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // Loaded here, when a --config is given (synchronously: this runs while the command line is read), not by every start.
  const { parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) throw new ProgramArgsError(`the config file ${path} is not valid YAML: ${doc.errors[0].message}`);
  const content: unknown = doc.toJS();
  if (content === null || content === undefined) return {};
  if (typeof content !== 'object' || Array.isArray(content)) throw new ProgramArgsError(`the config file ${path} must be a mapping of settings (key: value)`);
  const settings: FileSettings = {};
  for (const [key, value] of Object.entries(content as Record<string, unknown>)) {
    const spec = key === own ? undefined : specs[key];
    if (!spec) throw new ProgramArgsError(`unknown key '${key}' in the config file ${path} (keys are the long flags without --, see --help)`);
    if (value === null || value === '') continue;
    if (spec.value === undefined) {
      if (typeof value !== 'boolean') throw new ProgramArgsError(`'${key}' in the config file ${path} must be true or false`);
      settings[key] = value;
    } else {
      if (typeof value !== 'string' && typeof value !== 'number') throw new ProgramArgsError(`'${key}' in the config file ${path} must be a single value (${spec.value})`);
      settings[key] = String(value);
    }
  }
  return settings;
}
