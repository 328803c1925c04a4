import type { BigIntStats, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import type { FileChunk, FileEntry } from '../../shared/link/messages.js';
import { maxChunkBytes } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { at, errnoOf, locateResolved, makeDirectoryIn, openDirectory, openRegularFile, removeEntry, withPlace, type Place } from './beneath.js';
import { isUploadTemp } from './uploads.js';

/** A listing shows at most this many entries (sorted by name), so one answer stays one small message. */
export const maxListEntries = 10_000;

const childPath = (dir: string, name: string) => (dir === '.' ? name : `${dir}/${name}`);

/**
 * A file the files API never shows (the network's forwarding secret), as its path from the root
 * with `/` between names. It is recognised by where the walk arrived, links resolved, not by the
 * client's text: a link the game planted to it (or to a directory above it) leads to the same place.
 */
export type HiddenFile = string | undefined;

const isHidden = (resolved: readonly string[], hidden: HiddenFile) => hidden !== undefined && resolved.join('/') === hidden;

function refuseHidden(place: Place, hidden: HiddenFile): void {
  if (isHidden(place.resolved, hidden)) throw new AgentError('READ_ONLY', `path: ${place.relative} holds the network's forwarding secret; the files API never reads it.`);
}

/** What a symlink in a listing stands for: its target when that is inside the root, else nothing. */
async function linkedStats(root: string, resolved: string[], hidden: HiddenFile): Promise<Stats | undefined> {
  const place = await locateResolved(root, resolved).catch(() => undefined);
  if (!place) return undefined;
  if (isHidden(place.resolved, hidden)) {
    await place.close();
    return undefined;
  }
  try {
    return place.name ? await lstat(place.path) : await place.dir.stat();
  } catch {
    return undefined;
  } finally {
    await place.close();
  }
}

/** One directory's entries: files and directories (symlinks as what they point to, when that is inside the root), never `hidden`. */
export async function listDirectory(root: string, path: string, hidden?: HiddenFile): Promise<FileEntry[]> {
  return withPlace(root, path, 'read', async (place) => {
    const dir = await openDirectory(place);
    try {
      const names = (await readdir(at(dir))).filter((name) => !isUploadTemp(name)).sort();
      const entries: FileEntry[] = [];
      for (const name of names) {
        if (entries.length === maxListEntries) break;
        if (isHidden([...place.resolved, name], hidden)) continue;
        let entry = await lstat(at(dir, name)).catch(() => undefined);
        // A link is shown as its target only when the target stays inside the root; otherwise it is left out.
        if (entry?.isSymbolicLink()) entry = await linkedStats(root, [...place.resolved, name], hidden);
        if (!entry || !(entry.isFile() || entry.isDirectory())) continue;
        entries.push({
          name,
          path: childPath(place.relative, name),
          type: entry.isDirectory() ? 'DIRECTORY' : 'FILE',
          sizeBytes: entry.isDirectory() ? 0 : entry.size,
          modifiedAt: entry.mtime.toISOString(),
        });
      }
      return entries;
    } finally {
      await dir.close();
    }
  });
}

export interface ReadRange {
  offset: number;
  /** 0 reads to the end. */
  length: number;
  chunkBytes: number;
}

/** The file's stats as it was opened and after the range was read: equal when nothing wrote to it meanwhile. */
export type RangeStats = (opened: BigIntStats, after: BigIntStats) => void;

/**
 * Reads a range of a regular file in chunks, handing every chunk but the last to `part`; the last
 * (eof set when the file's end was reached) is returned. `hidden` is refused with READ_ONLY.
 */
export async function readFileRange(root: string, path: string, range: ReadRange, part: (chunk: FileChunk) => void, signal: AbortSignal, hidden?: HiddenFile, stats?: RangeStats): Promise<FileChunk> {
  const handle = await withPlace(root, path, 'read', (place) => {
    refuseHidden(place, hidden);
    return openRegularFile(place);
  });
  try {
    const opened = await handle.stat({ bigint: true });
    const total = Number(opened.size);
    const chunkBytes = Math.max(1, Math.min(range.chunkBytes || maxChunkBytes, maxChunkBytes));
    const end = range.length > 0 ? Math.min(total, range.offset + range.length) : total;
    let offset = Math.min(range.offset, total);
    for (;;) {
      signal.throwIfAborted();
      const size = Math.min(chunkBytes, end - offset);
      const data = Buffer.allocUnsafe(size);
      const { bytesRead } = size > 0 ? await handle.read(data, 0, size, offset) : { bytesRead: 0 };
      const chunk: FileChunk = { offset, data: data.subarray(0, bytesRead), eof: offset + bytesRead >= total, totalBytes: total };
      offset += bytesRead;
      // A file that shrank while being read ends early; the chunk says where.
      if (offset >= end || bytesRead === 0) {
        stats?.(opened, await handle.stat({ bigint: true }));
        return chunk;
      }
      part(chunk);
    }
  } finally {
    await handle.close();
  }
}

/** Deletes a file, or a directory with everything in it; a symlink is removed itself, never its target. */
export async function deletePath(root: string, path: string): Promise<void> {
  await withPlace(root, path, 'write', async (target) => {
    if (target.isRoot) throw new AgentError('INVALID_PATH', 'path: the server\'s root itself cannot be deleted.');
    await lstat(target.path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: ${target.relative} does not exist.`);
      throw e;
    });
    await removeEntry(target.dir, target.name);
  });
}

/** Creates one directory, owned by `owner` when games run as their own user; its parent must exist. */
export async function makeDirectory(root: string, path: string, owner?: GameIdentity | null): Promise<void> {
  await withPlace(root, path, 'write', async (target) => {
    if (target.isRoot) throw new AgentError('ALREADY_EXISTS', 'path: the server\'s root already exists.');
    try {
      await makeDirectoryIn(target.dir, target.name, owner);
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') throw new AgentError('ALREADY_EXISTS', `path: ${target.relative} already exists.`);
      if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: the directory of ${target.relative} does not exist.`);
      throw e;
    }
  });
}
