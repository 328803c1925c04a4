import { lchown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { GameIdentity } from './game-identity.js';

/** The installed software stays the Agent's: the game reads it and cannot change it. */
const keptByAgent = '.cairn';

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * Gives a server's directory and everything in it (but `.cairn`) to its identity, without ever
 * following a link: what the Agent wrote (config, plugins, a restore, a migration's files, a
 * directory from before isolation) becomes the game's. Entries already owned are only looked at.
 * Returns how many entries changed hands. It runs only before a start, while no process of the
 * server exists that could swap a directory for a link under it.
 */
export async function ownTree(root: string, identity: GameIdentity): Promise<number> {
  let changed = 0;
  const visit = async (path: string, isRoot: boolean): Promise<void> => {
    let info;
    try {
      info = await lstat(path);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return;
      throw e;
    }
    if (info.uid !== identity.uid || info.gid !== identity.gid) {
      await lchown(path, identity.uid, identity.gid);
      changed += 1;
    }
    if (!info.isDirectory()) return;
    const names = await readdir(path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return [] as string[];
      throw e;
    });
    for (const name of names) {
      if (isRoot && name === keptByAgent) continue;
      await visit(join(path, name), false);
    }
  };
  await visit(root, true);
  return changed;
}
