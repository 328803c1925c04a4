import { constants } from 'node:fs';
import { lchown, lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import type { GameIdentity } from './game-identity.js';

/** The mount point of the installed software stays the Agent's: the game cannot rename or remove it. */
const keptByAgent = '.cairn';

const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;
/** `name` in the directory held by `dir`: the kernel follows no link on the way there, and lchown not the last. */
const at = (dir: FileHandle, name: string) => `/proc/self/fd/${dir.fd}/${name}`;

/**
 * Gives a server's directory and everything in it (but `.cairn`) to its identity, walking held
 * directories by fd and never following a link: what the Agent wrote (config, plugins, a restore,
 * a migration's files, a directory from before isolation) becomes the game's. A directory the game
 * swaps for a link meanwhile (a process of it that outlived its box) is not entered: the walk
 * opens each directory with O_NOFOLLOW from its held parent. Entries already owned are only
 * looked at. Returns how many entries changed hands.
 */
export async function ownTree(root: string, identity: GameIdentity): Promise<number> {
  let changed = 0;
  const give = async (path: string): Promise<boolean> => {
    const info = await lstat(path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (!info) return false;
    if (info.uid !== identity.uid || info.gid !== identity.gid) {
      await lchown(path, identity.uid, identity.gid);
      changed += 1;
    }
    return info.isDirectory();
  };
  const visit = async (dir: FileHandle, isRoot: boolean): Promise<void> => {
    const names = await readdir(at(dir, '')).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return [] as string[];
      throw e;
    });
    for (const name of names) {
      if (isRoot && name === keptByAgent) continue;
      if (!(await give(at(dir, name)))) continue;
      const child = await open(at(dir, name), dirFlags).catch((e: unknown) => {
        if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR' || errnoOf(e) === 'ELOOP') return undefined;
        throw e;
      });
      if (!child) continue;
      try {
        await visit(child, false);
      } finally {
        await child.close();
      }
    }
  };
  if (!(await give(root))) return changed;
  const held = await open(root, dirFlags);
  try {
    await visit(held, true);
  } finally {
    await held.close();
  }
  return changed;
}
