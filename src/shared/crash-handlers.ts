import type { Logger } from './logger.js';

/**
 * What every Cairn program does with an error nothing caught: the Controller, the Agent, the CLI,
 * the per-server supervisor shim and the simulated servers each install this first thing.
 *
 * It imports nothing at run time (the logger is only a type), so the shim, which keeps its
 * imports to Node built-ins, can use it too.
 */

export type CrashKind = 'uncaughtException' | 'unhandledRejection';

export interface CrashHandlerOptions {
  /** The program's pino logger: the crash is one `fatal` line there. Without one, one JSON line on stderr. */
  logger?: Pick<Logger, 'fatal' | 'flush'>;
  /**
   * A program people run at a terminal (the CLI): one `error: …` line on stderr, no stack (the
   * CLI has no debug flag to ask for one), instead of a log line.
   */
  forUsers?: boolean;
}

/** The exit status of a crash, as Node's own for an uncaught exception. */
const crashExitCode = 1;
/** How long a logger gets to write the crash before the process leaves anyway. */
const flushDeadlineMs = 2_000;

let installed = false;

/**
 * Logs an uncaught exception or an unhandled rejection with context (program, pid, kind, the error
 * with its stack), then exits non-zero. Installing it again does nothing.
 *
 * uncaughtException: the program's state is unknown after it (a half-done operation, a broken
 * invariant), so the process exits rather than carry on.
 *
 * unhandledRejection: the process exits too. Node 20's default (`--unhandled-rejections=throw`)
 * raises an unhandled rejection as an uncaught exception, which exits; but a listener on
 * `unhandledRejection` replaces that default, so this one must exit itself or the program would
 * silently carry on where it used to crash. A rejection nobody handled is the same lost error as
 * an exception (a write that never happened, a stream left half-open), so the decision is Node's:
 * crash, only now after one line that says which program, which pid and what went wrong.
 */
export function installCrashHandlers(program: string, options: CrashHandlerOptions = {}): void {
  if (installed) return;
  installed = true;
  let crashing = false;
  const crash = (kind: CrashKind, error: unknown) => {
    report(program, kind, error, options);
    // A second failure while leaving is reported too, but the exit is already on its way.
    if (crashing) return;
    crashing = true;
    process.exitCode = crashExitCode;
    const { logger } = options;
    if (logger === undefined) process.exit(crashExitCode);
    // pino writes asynchronously: leave once the line is out, or at the deadline if it never is.
    setTimeout(() => process.exit(crashExitCode), flushDeadlineMs).unref();
    try {
      logger.flush(() => process.exit(crashExitCode));
    } catch {
      process.exit(crashExitCode);
    }
  };
  process.on('uncaughtException', (error) => crash('uncaughtException', error));
  process.on('unhandledRejection', (reason) => crash('unhandledRejection', reason));
}

function report(program: string, kind: CrashKind, error: unknown, options: CrashHandlerOptions): void {
  const what = kind === 'uncaughtException' ? 'uncaught exception' : 'unhandled rejection';
  if (options.forUsers) {
    process.stderr.write(`error: ${program} failed unexpectedly (${what}): ${oneLine(messageOf(error))}\n`);
    return;
  }
  if (options.logger) {
    try {
      options.logger.fatal({ event: 'crash', kind, program, pid: process.pid, err: error }, `${what}: exiting, the process state is unknown`);
      return;
    } catch {
      // The logger itself failed: fall through to stderr, never silently.
    }
  }
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), level: 'fatal', event: 'crash', kind, program, pid: process.pid, error: describe(error) })}\n`);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : safeJson(error);
}

function describe(error: unknown): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? error : safeJson(error);
  const code = (error as NodeJS.ErrnoException).code;
  return { name: error.name, message: error.message, ...(code === undefined ? {} : { code }), stack: error.stack };
}

function safeJson(value: unknown): string {
  try {
    // undefined, a function or a symbol has no JSON (the lib's type says string regardless).
    const json = JSON.stringify(value) as string | undefined;
    return json ?? String(value);
  } catch {
    return String(value);
  }
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');
