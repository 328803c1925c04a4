import { constants } from 'node:fs';
import { lstat, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { serverRoot } from '../reconciler/server-paths.js';
import { at, errnoOf, tempPrefix } from './beneath.js';
import { protectedDir } from './sandbox.js';

const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Opens directory `name` in `dir`; undefined when it is gone or no longer a directory (a symlink swapped in, say). */
async function openChild(dir: FileHandle, name: string): Promise<FileHandle | undefined> {
  try {
    return await open(at(dir, name), dirFlags);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
    throw e;
  }
}

/*
 * Walked by held directory fds with O_NOFOLLOW, like every other walk of a game's files: a game
 * may have planted symlinks, and a link named like a temporary is unlinked itself, never followed.
 */
async function sweepDir(dir: FileHandle, top: boolean): Promise<number> {
  let removed = 0;
  for (const name of await readdir(at(dir))) {
    if (top && name === protectedDir) continue;
    const info = await lstat(at(dir, name)).catch(() => undefined);
    if (!info) continue;
    if (name.startsWith(tempPrefix) && !info.isDirectory()) {
      await unlink(at(dir, name)).then(() => removed++, (e: unknown) => {
        if (errnoOf(e) !== 'ENOENT') throw e;
      });
      continue;
    }
    if (!info.isDirectory()) continue;
    const child = await openChild(dir, name);
    if (!child) continue;
    try {
      removed += await sweepDir(child, false);
    } finally {
      await child.close();
    }
  }
  return removed;
}

/** Removes the upload temporaries under one server's root; returns how many went. */
export async function sweepUploadTemps(root: string): Promise<number> {
  let handle: FileHandle;
  try {
    handle = await open(root, dirFlags);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR' || errnoOf(e) === 'ELOOP') return 0;
    throw e;
  }
  try {
    return await sweepDir(handle, true);
  } finally {
    await handle.close();
  }
}

/**
 * An Agent killed during an upload leaves its temporary file behind, hidden from the files API but
 * taking space (and, before backups skipped them, going into the next backup). Run at start, before
 * the link opens: no upload can be in progress then, so every temporary found is an orphan. A
 * server whose sweep fails is logged and left; the Agent starts regardless.
 */
export async function sweepAllUploadTemps(dataDir: string, logger: Logger): Promise<void> {
  const ids = await readdir(join(dataDir, 'servers')).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') return [];
    throw e;
  });
  for (const serverId of ids) {
    try {
      const removed = await sweepUploadTemps(serverRoot(dataDir, serverId));
      if (removed > 0) logger.info({ event: 'upload_temps_removed', serverId, removed }, 'removed temporary files of uploads interrupted by the last stop');
    } catch (e) {
      logger.warn({ event: 'upload_temps_sweep_failed', serverId, err: (e as Error).message }, 'could not remove temporary files of interrupted uploads');
    }
  }
}
