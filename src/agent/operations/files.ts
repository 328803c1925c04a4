import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileChunk, FileEntry } from '../../shared/link/messages.js';
import { maxChunkBytes } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';
import { insideRoot, resolveInRoot } from './sandbox.js';
import { isUploadTemp } from './uploads.js';

/** A listing shows at most this many entries (sorted by name), so one answer stays one small message. */
export const maxListEntries = 10_000;

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;
const childPath = (dir: string, name: string) => (dir === '.' ? name : `${dir}/${name}`);

/** One directory's entries: files and directories (symlinks as what they point to, when that is inside the root). */
export async function listDirectory(root: string, path: string): Promise<FileEntry[]> {
  const dir = await resolveInRoot(root, path, 'read');
  const info = await stat(dir.absolute);
  if (!info.isDirectory()) throw new AgentError('NOT_A_DIRECTORY', `path: ${dir.relative} is not a directory.`);
  const names = (await readdir(dir.absolute)).filter((name) => !isUploadTemp(name)).sort();
  const entries: FileEntry[] = [];
  for (const name of names) {
    if (entries.length === maxListEntries) break;
    const full = join(dir.absolute, name);
    let entry = await lstat(full).catch(() => undefined);
    if (entry?.isSymbolicLink()) {
      // A link is shown as its target only when the target stays inside the root; otherwise it is left out.
      const target = await realpath(full).catch(() => undefined);
      entry = target && insideRoot(dir.root, target) ? await stat(target).catch(() => undefined) : undefined;
    }
    if (!entry || !(entry.isFile() || entry.isDirectory())) continue;
    entries.push({
      name,
      path: childPath(dir.relative, name),
      type: entry.isDirectory() ? 'DIRECTORY' : 'FILE',
      sizeBytes: entry.isDirectory() ? 0 : entry.size,
      modifiedAt: entry.mtime.toISOString(),
    });
  }
  return entries;
}

export interface ReadRange {
  offset: number;
  /** 0 reads to the end. */
  length: number;
  chunkBytes: number;
}

/**
 * Reads a range of a regular file in chunks, handing every chunk but the last to `part`; the last
 * (eof set when the file's end was reached) is returned. The file is opened without following a
 * final symlink (the sandbox already resolved any link to its checked target).
 */
export async function readFileRange(root: string, path: string, range: ReadRange, part: (chunk: FileChunk) => void, signal: AbortSignal): Promise<FileChunk> {
  const file = await resolveInRoot(root, path, 'read');
  const handle = await open(file.absolute, constants.O_RDONLY | constants.O_NOFOLLOW).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: ${file.relative} does not exist.`);
    throw e;
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new AgentError('NOT_A_FILE', `path: ${file.relative} is not a file.`);
    const total = info.size;
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
      if (offset >= end || bytesRead === 0) return chunk;
      part(chunk);
    }
  } finally {
    await handle.close();
  }
}

/** Deletes a file, or a directory with everything in it; a symlink is removed itself, never its target. */
export async function deletePath(root: string, path: string): Promise<void> {
  const target = await resolveInRoot(root, path, 'write');
  if (target.isRoot) throw new AgentError('INVALID_PATH', 'path: the server\'s root itself cannot be deleted.');
  await lstat(target.absolute).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: ${target.relative} does not exist.`);
    throw e;
  });
  await rm(target.absolute, { recursive: true, force: true });
}

/** Creates one directory; its parent must exist. */
export async function makeDirectory(root: string, path: string): Promise<void> {
  const target = await resolveInRoot(root, path, 'write');
  if (target.isRoot) throw new AgentError('ALREADY_EXISTS', 'path: the server\'s root already exists.');
  try {
    await mkdir(target.absolute, { mode: 0o755 });
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') throw new AgentError('ALREADY_EXISTS', `path: ${target.relative} already exists.`);
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: the directory of ${target.relative} does not exist.`);
    throw e;
  }
}
