import { installCrashHandlers } from './crash-handlers.js';
import { lockDataDir } from './data-dir-lock.js';
import type { Logger } from './logger.js';
import { ProgramArgsError, versionLine } from './program-args.js';
import { ProgramConfigError, StartRefusedError, type CommandLine } from './program-config.js';

/**
 * The start-up `cairn-controller` and `cairn-agent` share: crash handlers, the command line, the
 * start, and a graceful stop on SIGTERM and SIGINT. What each program starts, and how long its stop
 * may take, stays in its own main.ts.
 */

export interface ProgramMain<C> {
  /** `cairn-agent`: the prefix of a usage error, and the `program` of a crash's log line. */
  name: string;
  logger: Logger;
  /** The `--help` text. */
  help: string;
  commandLine(argv: string[]): CommandLine<C>;
  /** The data dir the program keeps to itself, and who it is in the refusal of a second one on it (`Controller`). */
  dataDir: { of(config: C): string; program: string };
  /** Starts the program and sets up how it stops (`stopOnSignals`). */
  start(config: C): Promise<void>;
  /** The message of the `fatal` line when `start` (or reading the command line) fails unexpectedly. */
  startFailed: string;
}

/**
 * Installs the crash handlers, reads the command line (a usage error is one line on stderr and
 * exit 2; `--help` and `--version` print to stdout and return), locks the data dir, then starts the
 * program. A start refused (StartRefusedError: the data dir in use, a port taken) is one line on
 * stderr and exit 2; one that fails otherwise is logged `fatal` and exits 1.
 */
export function runProgram<C>(program: ProgramMain<C>): void {
  const { logger } = program;
  installCrashHandlers(program.name, { logger });
  const main = async () => {
    const config = configOrExit(program);
    if (config === undefined) return;
    // Before the program opens anything there: a second one on the data dir stops here, touching nothing.
    const lock = await lockDataDir(program.dataDir.of(config), { program: program.dataDir.program, logger });
    // At any exit but SIGKILL; a lock SIGKILL leaves behind names a process that is gone, and the next start replaces it.
    process.once('exit', () => lock.release());
    await program.start(config);
  };
  main().catch((error: unknown) => {
    if (error instanceof StartRefusedError) {
      process.stderr.write(`${program.name}: ${error.message}\n`);
      logger.flush(() => process.exit(2));
      return;
    }
    logger.fatal({ err: error }, program.startFailed);
    logger.flush();
    process.exit(1);
  });
}

/** The configuration to run with, or undefined when `--help` or `--version` printed; exits 2 on a usage error. */
function configOrExit<C>(program: ProgramMain<C>): C | undefined {
  let args;
  try {
    args = program.commandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof ProgramConfigError) && !(e instanceof ProgramArgsError)) throw e;
    process.stderr.write(`${program.name}: ${e.message}\n`);
    process.exit(2);
  }
  if (args.action === 'run') return args.config;
  process.stdout.write(args.action === 'help' ? program.help : versionLine());
  return undefined;
}

export interface GracefulStop {
  logger: Logger;
  /** The stop itself; what it answers goes into the last `stopped` line. */
  stop(): Promise<object | void>;
  /** The `stopping` line: fields beyond the signal, and its message. */
  stopping: { fields?: Record<string, unknown>; message: string };
  /** Past this, the process logs `stop_timeout` and exits 1 without finishing the stop. */
  deadlineMs: number;
  /**
   * A second signal while stopping: `exit` at once with 1, or `ignore` it (the local Agent: Ctrl-C
   * sends SIGINT to it and its Controller, and that Controller's stop then sends it SIGTERM).
   */
  secondSignal: 'exit' | 'ignore';
}

/**
 * SIGTERM or SIGINT stops gracefully and exits 0 after a last `stopped` line; a failed stop, or
 * one that outlives its deadline, exits 1. Answers the stop, for other reasons to stop the same way.
 */
export function stopOnSignals(options: GracefulStop): (reason: string) => void {
  const { logger } = options;
  const exitAfterFlush = (code: number) => logger.flush(() => process.exit(code));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      if (options.secondSignal === 'ignore') return;
      logger.warn({ event: 'stop_forced', signal }, 'second signal: exiting without finishing the stop');
      exitAfterFlush(1);
      return;
    }
    stopping = true;
    const startedAt = Date.now();
    logger.info({ event: 'stopping', signal, ...options.stopping.fields }, options.stopping.message);
    setTimeout(() => {
      logger.error({ event: 'stop_timeout', afterMs: Date.now() - startedAt }, 'the stop did not finish in time; exiting');
      exitAfterFlush(1);
    }, options.deadlineMs).unref();
    options.stop().then((report) => {
      logger.info({ event: 'stopped', signal, tookMs: Date.now() - startedAt, ...report }, 'stopped');
      exitAfterFlush(0);
    }, (err: unknown) => {
      logger.error({ event: 'stop_failed', err }, 'stopping failed');
      exitAfterFlush(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return stop;
}
