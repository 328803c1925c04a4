/**
 * simcraft's console hooks for containment tests: they let a test see, from inside the game, which
 * identity it runs as, what it can read, and whether its memory and CPU limits hold. Each printed
 * line carries `[Debug] ...` so tests can find it behind the console's timestamp.
 */
import { open, readFile } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { ConsoleLog } from './console-log.js';
import { netCommand, netHelp } from './net-hooks.js';

const MiB = 2 ** 20;
/** Allocation happens in steps of this many MiB, with a progress line after each. */
export const allocStepMiB = 64;
const maxSpinSeconds = 3600;
const maxSpinThreads = 64;

/** Kept for the process's life: memory a test asked for must stay resident. */
const held: Buffer[] = [];

const debug = (log: ConsoleLog, message: string) => log.info(`[Debug] ${message}`);

export function whoami(log: ConsoleLog): void {
  debug(log, `uid=${process.getuid?.() ?? -1} gid=${process.getgid?.() ?? -1}`);
}

export async function readfile(path: string, log: ConsoleLog): Promise<void> {
  try {
    const bytes = await readFile(path);
    debug(log, `readfile ${path}: ok ${bytes.length} bytes`);
  } catch (error) {
    debug(log, `readfile ${path}: error ${(error as NodeJS.ErrnoException).code ?? 'EUNKNOWN'}`);
  }
}

/**
 * Writes `mib` MiB of non-zero bytes to `path` (relative to the game's directory), 1 MiB at a time
 * and synced, so a disk limit is met as a game meets it: the write that passes it fails.
 */
export async function fill(mib: number, path: string, log: ConsoleLog): Promise<void> {
  const chunk = Buffer.alloc(MiB, 0x5a);
  let done = 0;
  try {
    const handle = await open(path, 'w');
    try {
      for (; done < mib; done++) await handle.write(chunk, 0, MiB, done * MiB);
      await handle.sync();
    } finally {
      await handle.close();
    }
    debug(log, `fill ${path}: ok ${done} MiB`);
  } catch (error) {
    debug(log, `fill ${path}: error ${(error as NodeJS.ErrnoException).code ?? 'EUNKNOWN'} after ${done} MiB`);
  }
}

/** A whole number of MiB, at least 1; undefined for anything else. */
export function parseMiB(raw: string | undefined): number | undefined {
  const n = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/** The sizes, in MiB, of the steps that allocate `total` MiB: full steps, then the remainder. */
export function allocSteps(total: number, step = allocStepMiB): number[] {
  const steps = Array<number>(Math.floor(total / step)).fill(step);
  if (total % step !== 0) steps.push(total % step);
  return steps;
}

export async function alloc(total: number, log: ConsoleLog): Promise<void> {
  let done = 0;
  for (const size of allocSteps(total)) {
    try {
      // allocUnsafeSlow then fill: a zeroed allocation may be backed by untouched pages that count for nothing.
      held.push(Buffer.allocUnsafeSlow(size * MiB).fill(0x5a));
    } catch (error) {
      debug(log, `alloc failed after ${done} MiB: ${(error as Error).message}`);
      return;
    }
    done += size;
    debug(log, `allocated ${done} MiB`);
    await yieldToLoop();
  }
}

export interface SpinRequest {
  seconds: number;
  threads: number;
}

/** `<seconds> [threads]`: seconds a positive number up to an hour, threads a whole number 1..64 (default 1). */
export function parseSpin(args: string[]): SpinRequest | undefined {
  if (args.length < 1 || args.length > 2) return undefined;
  const [rawSeconds, rawThreads = '1'] = args;
  const seconds = /^\d+(\.\d+)?$/.test(rawSeconds) ? Number(rawSeconds) : NaN;
  const threads = /^\d+$/.test(rawThreads) ? Number(rawThreads) : NaN;
  if (!(seconds > 0 && seconds <= maxSpinSeconds) || !(threads >= 1 && threads <= maxSpinThreads)) return undefined;
  return { seconds, threads };
}

/**
 * Evaluated rather than loaded from a file, so it runs the same from source under tsx and from
 * dist. It uses only globals: eval code is a module when the parent was started with
 * --input-type=module, where `require` does not exist. The duration comes as the last argv entry.
 */
const busyLoop = `
const end = Date.now() + Number(process.argv.at(-1));
let x = 0;
while (Date.now() < end) x = (x + 1) % 1e9;
`;

export async function spin({ seconds, threads }: SpinRequest, log: ConsoleLog): Promise<void> {
  debug(log, `spinning ${threads} thread(s) for ${seconds} s`);
  const workers = Array.from({ length: threads }, () => new Worker(busyLoop, { eval: true, argv: [String(seconds * 1000)] }));
  await Promise.all(workers.map((w) => new Promise<void>((resolve) => {
    w.once('exit', () => resolve());
    w.once('error', (error) => debug(log, `spin thread failed: ${error.message}`));
  })));
  debug(log, 'spin done');
}

export const debugHelp = [
  '/alloc <MiB>: Allocates and keeps that much memory (a test hook)',
  '/fill <MiB> <path>: Writes that many MiB to a file and tells how far it got (a test hook)',
  ...netHelp,
  '/readfile <path>: Reads a file and tells its size or the error (a test hook)',
  '/spin <seconds> [threads]: Keeps that many threads busy (a test hook)',
  '/whoami: Prints the uid and gid it runs as (a test hook)',
];

/** Runs a debug command; false when `verb` is not one. */
export function debugCommand(verb: string, args: string[], log: ConsoleLog): boolean {
  const failed = (error: unknown) => debug(log, `${verb} failed: ${(error as Error).message}`);
  const words = args.filter((w) => w !== '');
  switch (verb) {
    case 'whoami':
      whoami(log);
      return true;
    case 'fill': {
      const mib = words.length === 2 ? parseMiB(words[0]) : undefined;
      if (mib === undefined) debug(log, 'usage: fill <MiB> <path>');
      else void fill(mib, words[1], log);
      return true;
    }
    case 'readfile': {
      const path = args.join(' ').trim();
      if (path === '') debug(log, 'usage: readfile <path>');
      else readfile(path, log).catch(failed);
      return true;
    }
    case 'alloc': {
      const mib = words.length === 1 ? parseMiB(words[0]) : undefined;
      if (mib === undefined) debug(log, 'usage: alloc <MiB>');
      else alloc(mib, log).catch(failed);
      return true;
    }
    case 'spin': {
      const request = parseSpin(words);
      if (request === undefined) debug(log, `usage: spin <seconds> [threads] (seconds up to ${maxSpinSeconds}, threads 1..${maxSpinThreads})`);
      else spin(request, log).catch(failed);
      return true;
    }
    default:
      return netCommand(verb, words, log);
  }
}
