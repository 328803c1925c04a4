import { parseProgramArgs, programHelp, type FlagSpec } from './program-args.js';
import { programSettings } from './settings.js';

/**
 * How `cairn-controller` and `cairn-agent` read their configuration: flags, then environment
 * variables, then the `--config` YAML file, then the program's defaults. Each program keeps its
 * own flags, defaults and checks (src/controller/program/config.ts, src/agent/config.ts) and hands them here.
 */

/** A setting the program cannot run with (missing, or a bad value): a usage error, exit 2. Each program throws its own subclass. */
export class ProgramConfigError extends Error {}

/** What the program found at start refuses it (its data dir in use, a port taken): one line on stderr and exit 2, as a usage error. */
export class StartRefusedError extends Error {}

/** What a command line asks for: print the help or the version, or run with a configuration. */
export type CommandLine<C> = { action: 'help' | 'version' } | { action: 'run'; config: C };

/** The settings a program builds its configuration from, each from the first source that has it. */
export interface ProgramSettings<F extends string> {
  /** A valued setting; an empty string counts as unset. */
  readonly get: (name: F) => string | undefined;
  /** An on/off setting. */
  readonly on: (name: F) => boolean;
  /**
   * A valued setting checked by `parse`, or undefined when it is unset. A value `parse` refuses
   * (answers undefined) throws the program's error, `--NAME must be RULE, got "value"`.
   */
  readonly parsed: <T>(name: F, rule: string, parse: (raw: string) => T | undefined) => T | undefined;
}

export interface ProgramConfigSpec<C, F extends string> {
  /** The first line of `--help`: `cairn-agent --controller HOST:PORT --data-dir DIR [options]`. */
  usage: string;
  /** What the program is, under the usage line. */
  summary: string;
  /** Every flag but `--help` and `--version`; `config` names the YAML file of the others. */
  flags: Record<F, FlagSpec> & { config: FlagSpec };
  /** Who runs with the configuration, for the error of `--help` or `--version` given to `config()`: `the Agent`. */
  runs: string;
  /** The program's own error class. */
  error: new (message: string) => ProgramConfigError;
  /** The configuration from the settings; it refuses what it cannot run with. */
  build(settings: ProgramSettings<F>): C;
}

/** What a program's config module exports, under its own names (`parseAgentConfig`, ...). */
export interface ProgramConfig<C> {
  /** The `--help` text. */
  readonly help: string;
  /** `--help`, `--version`, or the configuration to run with. */
  readonly commandLine: (argv: string[], env?: NodeJS.ProcessEnv) => CommandLine<C>;
  /** The configuration of a command line that runs the program (tests build theirs this way). */
  readonly config: (argv: string[], env?: NodeJS.ProcessEnv) => C;
}

export function programConfig<C, F extends string>(spec: ProgramConfigSpec<C, F>): ProgramConfig<C> {
  const refuse = (message: string): never => {
    throw new spec.error(message);
  };
  const commandLine = (argv: string[], env: NodeJS.ProcessEnv = process.env): CommandLine<C> => {
    const args = parseProgramArgs(argv, spec.flags);
    if (args.action !== 'run') return args;
    const settings = programSettings(args.values, env, spec.flags, 'config');
    return {
      action: 'run',
      config: spec.build({
        get: (name) => settings.get(name),
        on: (name) => settings.on(name),
        parsed: (name, rule, parse) => {
          const raw = settings.get(name);
          if (raw === undefined) return undefined;
          return parse(raw) ?? refuse(`--${name} must be ${rule}, got ${JSON.stringify(raw)}`);
        },
      }),
    };
  };
  return {
    help: programHelp(spec.usage, spec.summary, spec.flags),
    commandLine,
    config: (argv, env = process.env) => {
      const args = commandLine(argv, env);
      return args.action === 'run' ? args.config : refuse(`--${args.action} prints and exits; it does not run ${spec.runs}`);
    },
  };
}

/** A parse for `parsed()`: a whole number from `min` to `max`. */
export function wholeNumber(min: number, max: number = Number.MAX_SAFE_INTEGER): (raw: string) => number | undefined {
  return (raw) => {
    const n = Number(raw);
    return Number.isInteger(n) && n >= min && n <= max ? n : undefined;
  };
}
