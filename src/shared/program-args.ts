import { parseArgs } from 'node:util';
import { cairnVersion } from './version.js';

/** One flag of `cairn-controller` or `cairn-agent`: what its value looks like, the variable that also sets it, what it does. */
export interface FlagSpec {
  /** Placeholder of the value (`DIR`, `N`); absent for an on/off flag. */
  value?: string;
  env?: string;
  help: string;
  /** The flag may be given more than once; its values arrive joined by commas, as its variable takes them. */
  multiple?: boolean;
}

/** A command line the program cannot run with (exit status 2). */
export class ProgramArgsError extends Error {}

export type ProgramArgs = { action: 'help' } | { action: 'version' } | { action: 'run'; values: Record<string, string | boolean | undefined> };

/**
 * Parses the flags in `specs` plus `--help`/`-h` and `--version`/`-V`. An unknown flag or a
 * stray argument is refused with a message naming it.
 */
export function parseProgramArgs(argv: string[], specs: Record<string, FlagSpec>): ProgramArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      options: {
        ...Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { type: spec.value === undefined ? ('boolean' as const) : ('string' as const), multiple: spec.multiple === true }])),
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    });
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS')) throw e;
    const named = /'([^']+)'/.exec((e as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new ProgramArgsError(`unknown option '${named}' (see --help)`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new ProgramArgsError(`unexpected argument '${named}' (see --help)`);
    throw new ProgramArgsError(`${(e as Error).message.split('.')[0]} (see --help)`);
  }
  const { help, version, ...given } = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const values = Object.fromEntries(Object.entries(given).map(([name, v]) => [name, Array.isArray(v) ? v.join(',') : v]));
  if (help) return { action: 'help' };
  if (version) return { action: 'version' };
  return { action: 'run', values };
}

/** `--help` text: usage, then each flag with its variable. */
export function programHelp(usage: string, summary: string, specs: Record<string, FlagSpec>): string {
  const short: Record<string, string> = { help: '-h, ', version: '-V, ' };
  const left = (name: string, spec: FlagSpec) => `${short[name] ?? ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
  const all: [string, FlagSpec][] = [...Object.entries(specs), ['help', { help: 'print this help' }], ['version', { help: 'print the version' }]];
  const width = Math.max(...all.map(([n, s]) => left(n, s).length)) + 2;
  const lines = all.map(([name, spec]) => `  ${left(name, spec).padEnd(width)}${spec.help}${spec.env ? ` (env ${spec.env})` : ''}`);
  return `Usage: ${usage}\n\n${summary}\n\nOptions:\n${lines.join('\n')}\n`;
}

export const versionLine = () => `${cairnVersion}\n`;
