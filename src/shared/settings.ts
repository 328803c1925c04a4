import { readConfigFile, type FileSettings } from './config-file.js';
import type { FlagSpec } from './program-args.js';

/** One program's settings, each from the first source that has it. */
export interface Settings {
  /** A valued setting; an empty string counts as unset. */
  get(name: string): string | undefined;
  /** An on/off setting. */
  on(name: string): boolean;
}

/** The variable an on/off flag reads; its help spells the value that turns it on (`CAIRN_LOCAL_AGENT=1`). */
const envName = (spec: FlagSpec) => spec.env?.split('=')[0];

/**
 * Flags win over environment variables, which win over the `configFlag` file (its path itself a
 * flag or variable), which wins over the caller's defaults. An on/off variable set to anything
 * but `1` turns the setting off, even when the file turns it on.
 */
export function programSettings(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv, specs: Record<string, FlagSpec>, configFlag: string): Settings {
  const fromEnv = (name: string): string | undefined => {
    const variable = envName(specs[name]);
    const v = variable === undefined ? undefined : env[variable];
    return v === '' ? undefined : v;
  };
  const flag = (name: string) => (values[name] === '' ? undefined : values[name]);
  const path = (flag(configFlag) as string | undefined) ?? fromEnv(configFlag);
  const file: FileSettings = path === undefined ? {} : readConfigFile(path, specs, configFlag);
  return {
    get: (name) => (flag(name) as string | undefined) ?? fromEnv(name) ?? (file[name] as string | undefined),
    on: (name) => {
      if (values[name] === true) return true;
      const v = fromEnv(name);
      return v === undefined ? file[name] === true : v === '1';
    },
  };
}
