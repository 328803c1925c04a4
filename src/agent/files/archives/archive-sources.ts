import { constants } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import { AgentError } from '../../errors.js';
import { at, openDirectory, withPlace } from '../beneath.js';
import { isUploadTemp } from '../uploads.js';
import { protectedDir } from '../sandbox.js';

/** One entry to put in an archive: a regular file or a directory, found by the walk. */
export interface ArchiveSource {
  /** Its name in the archive (`/`-separated, a directory's without a trailing `/`). */
  name: string;
  /** Its path from the root, links resolved: where the writer opens it again. */
  resolved: string[];
  kind: 'file' | 'directory';
  mode: number;
  mtime: Date;
}

/** An archive lists at most this many entries (a listing is kept in memory while it is written). */
export const maxArchiveSources = 200_000;

const childDirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The files and directories under each of `paths`, walked by held directory fds: symlinks inside
 * the sources, FIFOs, devices and sockets are left out (never followed), as are the Agent's
 * temporary files, `.cairn` at the root and the forwarding secret's file (`hidden`). Each source is
 * named in the archive by its last path element (the root's content by its own names).
 */
export async function archiveSources(root: string, paths: readonly string[], hidden: string | undefined): Promise<ArchiveSource[]> {
  const out: ArchiveSource[] = [];
  const add = (source: ArchiveSource) => {
    if (out.length >= maxArchiveSources) throw new AgentError('TOO_LARGE', `An archive holds at most ${maxArchiveSources} entries.`);
    out.push(source);
  };
  const walkDir = async (dir: FileHandle, prefix: string, resolved: string[]) => {
    for (const name of (await readdir(at(dir))).sort()) {
      const path = [...resolved, name];
      if (isUploadTemp(name) || (resolved.length === 0 && name === protectedDir) || path.join('/') === hidden) continue;
      const info = await lstat(at(dir, name)).catch(() => undefined);
      const entryName = prefix ? `${prefix}/${name}` : name;
      if (info?.isFile()) add({ name: entryName, resolved: path, kind: 'file', mode: info.mode & 0o777, mtime: info.mtime });
      if (!info?.isDirectory()) continue;
      const child = await open(at(dir, name), childDirFlags).catch(() => undefined);
      if (!child) continue;
      try {
        add({ name: entryName, resolved: path, kind: 'directory', mode: info.mode & 0o777, mtime: info.mtime });
        await walkDir(child, entryName, path);
      } finally {
        await child.close();
      }
    }
  };
  for (const path of paths) {
    await withPlace(root, path, 'read', async (place) => {
      if (place.resolved[0] === protectedDir) throw new AgentError('READ_ONLY', `path: ${place.relative} is the installed software; it is not archived.`);
      if (place.resolved.join('/') === hidden) throw new AgentError('READ_ONLY', `path: ${place.relative} holds the network's forwarding secret; it is never read.`);
      const info = place.name ? await lstat(place.path).catch(() => undefined) : await place.dir.stat();
      if (!info) throw new AgentError('NOT_FOUND', `path: ${place.relative} does not exist.`);
      const name = place.isRoot ? '' : place.relative.split('/').pop()!;
      if (info.isFile()) return add({ name, resolved: place.resolved, kind: 'file', mode: info.mode & 0o777, mtime: info.mtime });
      if (!info.isDirectory()) throw new AgentError('NOT_A_FILE', `path: ${place.relative} is neither a file nor a directory.`);
      const dir = await openDirectory(place);
      try {
        if (name) add({ name, resolved: place.resolved, kind: 'directory', mode: info.mode & 0o777, mtime: info.mtime });
        await walkDir(dir, name, place.resolved);
      } finally {
        await dir.close();
      }
    });
  }
  return out;
}
