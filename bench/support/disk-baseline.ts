import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Flushes every dirty page of the filesystem holding `path` (syncfs): a copy timed after it does
 * not pay for the writes of what ran before it.
 */
export async function settle(path: string): Promise<void> {
  await run('sync', ['-f', path]);
}

/**
 * What the disk itself does with a tree: MB/s of `cp -a source target` on the same filesystem,
 * synced (a backup is durable only once its bytes are on the disk), timed from the copy's start to
 * the end of the sync. The copy is removed afterwards.
 */
export async function cpRate(source: string, target: string, bytes: number): Promise<number> {
  await settle(source);
  const started = performance.now();
  await run('cp', ['-a', source, target]);
  await settle(target);
  const seconds = (performance.now() - started) / 1000;
  await rm(target, { recursive: true, force: true });
  await settle(source);
  return bytes / 1e6 / seconds;
}

/** `123.4 MB/s (cp -a 987.6 MB/s, ratio 0.12)` */
export const againstCp = (rate: number, cp: number) => `${rate.toFixed(1)} MB/s (cp -a of the same tree, synced, ${cp.toFixed(1)} MB/s in this run; ratio ${(rate / cp).toFixed(2)})`;
