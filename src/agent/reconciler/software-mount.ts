import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { adoptLegacyMemberMarker } from '../network/network-settings.js';
import { at, errnoOf, removeEntryOf } from '../files/beneath.js';
import { protectedDir } from '../files/sandbox.js';

/**
 * Makes `root/.cairn` an empty directory of the Agent's: the mount point the game's view binds
 * the software on, and the name the files API shows it by. Whatever stands there instead (the
 * software an earlier version installed in the root, or anything the game put there: a link, a
 * FIFO, a directory of links) is moved out of the root by renaming the entry itself, never
 * following it, into the server's home where no game reaches, and removed there. Only names
 * relative to the held root are used, so a root the game rearranges meanwhile leads nowhere else.
 * Answers whether something was moved out.
 */
export async function prepareSoftwareMount(root: string): Promise<boolean> {
  await mkdir(root, { recursive: true });
  const held = await open(root, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const info = await lstat(at(held, protectedDir)).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (info?.isDirectory() && info.uid === process.getuid?.() && (await readdir(at(held, protectedDir))).length === 0) return false;
    let moved = false;
    if (info) {
      const name = `.cairn-moved-${randomUUID()}`;
      await rename(at(held, protectedDir), join(dirname(root), name));
      if (info.isDirectory()) await adoptLegacyMemberMarker(root, join(dirname(root), name));
      await removeEntryOf(dirname(root), name);
      moved = true;
    }
    await mkdir(at(held, protectedDir), { mode: 0o755 });
    return moved;
  } finally {
    await held.close();
  }
}

