import { chmod, mkdir, stat } from 'node:fs/promises';

/**
 * Creates `dir` mode 0700, or narrows an existing one to 0700 when group or others have any bit
 * on it: the store, keys and credentials inside must be readable by this uid alone, and a directory
 * an earlier version (or an operator) created wider would otherwise stay open. Returns the mode it
 * had when it was narrowed, so the caller can log that once; undefined when nothing changed.
 */
export async function ensurePrivateDir(dir: string): Promise<number | undefined> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  await chmod(dir, 0o700);
  return mode;
}
