import { readFile, rmdir } from 'node:fs/promises';

/**
 * What the shim does with a game's cgroup (it imports nothing outside its folder): count the
 * kernel's OOM kills, and remove the group once the game is gone.
 */

/** The `oom_kill` count in a v1 `memory.oom_control` or a v2 `memory.events` text. */
export function parseOomKills(text: string): number {
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

/** How many processes of the group the kernel killed for memory; 0 when the file cannot be read. */
export async function readOomKills(oomFile: string): Promise<number> {
  try {
    return parseOomKills(await readFile(oomFile, 'utf8'));
  } catch {
    return 0;
  }
}

/** Removes an empty group; one that is gone or still busy is left as it is. */
export async function removeGroup(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EBUSY') throw e;
  }
}
