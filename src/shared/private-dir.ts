import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Creates `dir` mode 0700, or narrows an existing one to 0700 when group or others have any bit
 * on it: the store, keys and credentials inside must be readable by this uid alone, and a directory
 * an earlier version (or an operator) created wider would otherwise stay open; `walkable` keeps
 * bits that let others walk through without listing. Returns the mode it
 * had when it was narrowed, so the caller can log that once; undefined when nothing changed.
 */
export async function ensurePrivateDir(dir: string, options: { walkable?: boolean } = {}): Promise<number | undefined> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const mode = (await stat(dir)).mode & 0o777;
  // Walking through without listing (x alone) is what an Agent whose games lack a view gives them.
  if ((mode & (options.walkable ? 0o066 : 0o077)) === 0) return undefined;
  await chmod(dir, 0o700);
  return mode;
}

/**
 * Narrows everything under `dir` to 0600 files and 0700 directories, never following a link:
 * what an earlier version wrote under its umask (the store's files were 0644). Returns how many
 * entries it changed.
 */
export async function tightenTree(dir: string): Promise<number> {
  let changed = 0;
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path).catch(() => undefined);
    if (!info || info.isSymbolicLink()) return;
    const mode = info.mode & 0o777;
    const wanted = info.isDirectory() ? mode & 0o700 : mode & 0o600;
    if (mode !== wanted) {
      await chmod(path, wanted);
      changed += 1;
    }
    if (!info.isDirectory()) return;
    for (const name of await readdir(path).catch(() => [] as string[])) await visit(join(path, name));
  };
  await visit(dir);
  return changed;
}
