import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from './logger.js';
import { StartRefusedError } from './program-config.js';
import { isSameProcessAlive, readProcStat } from './proc-stat.js';

/**
 * One Controller (or one Agent) per data dir: two on one embedded store, or on one Agent's servers,
 * would each overwrite what the other wrote. The lock is `<data-dir>/lock`, holding the pid and the
 * start time of its holder, so a lock left by a process that is gone (SIGKILL, a crash, a reboot)
 * is told apart from a live one even when its pid now names another process.
 */

export const lockFileOf = (dataDir: string) => join(dataDir, 'lock');

interface LockHolder {
  pid: number;
  startTicks: number;
}

/** A live process holds the data dir. */
export class DataDirLockedError extends StartRefusedError {
  constructor(readonly holderPid: number, readonly dataDir: string, program: string) {
    super(`another ${program} (pid ${holderPid}) is using ${dataDir}`);
  }
}

export interface DataDirLock {
  /** Removes the lock if it is still this process's. Synchronous, so it can run as the process exits. */
  release(): void;
}

export interface LockOptions {
  /** Who holds it, as the refusal names it: `Controller`, `Agent`. */
  program: string;
  logger: Pick<Logger, 'warn'>;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const { pid, startTicks } = (JSON.parse(text) ?? {}) as Record<string, unknown>;
    const whole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
    return whole(pid) && pid > 0 && whole(startTicks) ? { pid, startTicks } : undefined;
  } catch {
    return undefined;
  }
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/** The lock file's text, or undefined when there is none (its holder just let go). */
async function readLock(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Moves aside the lock whose text is `stale`, and answers whether it was that one: between reading it
 * and moving it, another process replacing the same stale lock may have put its own live one there,
 * which then goes back (and the caller tries again).
 */
async function removeStale(file: string, stale: string): Promise<boolean> {
  const aside = `${file}.stale-${process.pid}`;
  try {
    await rename(file, aside);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return false;
    throw e;
  }
  if ((await readFile(aside, 'utf8')) !== stale) {
    await link(aside, file).catch((e: unknown) => {
      if (errnoOf(e) !== 'EEXIST') throw e;
    });
    await rm(aside, { force: true });
    return false;
  }
  await rm(aside, { force: true });
  return true;
}

/**
 * Takes the lock of `dataDir` (creating the directory 0700 if it is missing), or throws
 * DataDirLockedError naming the live process that holds it. A lock whose holder is gone is
 * replaced, and that is logged.
 */
export async function lockDataDir(dataDir: string, options: LockOptions): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = lockFileOf(dataDir);
  const own = `${JSON.stringify({ pid: process.pid, startTicks: (await readProcStat(process.pid))?.startTicks ?? 0 })}\n`;
  // Written whole under a name of its own, then linked (link is exclusive, as O_EXCL): the lock
  // never shows another process an empty or half-written holder, which it would take for stale.
  const draft = `${file}.${process.pid}`;
  await writeFile(draft, own, { mode: 0o600 });
  try {
    for (;;) {
      try {
        await link(draft, file);
        return { release: () => releaseIfOwn(file, own) };
      } catch (e) {
        if (errnoOf(e) !== 'EEXIST') throw e;
      }
      const text = await readLock(file);
      if (text === undefined) continue;
      const holder = parseHolder(text);
      if (holder && (await isSameProcessAlive(holder.pid, holder.startTicks))) throw new DataDirLockedError(holder.pid, dataDir, options.program);
      if (await removeStale(file, text)) {
        options.logger.warn({ event: 'stale_lock_replaced', dataDir, formerPid: holder?.pid }, `${file} was left by a ${options.program} that is gone${holder ? ` (pid ${holder.pid})` : ''}; replacing it`);
      }
    }
  } finally {
    await rm(draft, { force: true });
  }
}

function releaseIfOwn(file: string, own: string): void {
  try {
    if (readFileSync(file, 'utf8') === own) unlinkSync(file);
  } catch {
    // Already gone, or the data dir with it: nothing is held any more.
  }
}
