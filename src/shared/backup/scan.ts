import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import pMap from 'p-map';
import { softwareDir, uploadTempPrefix, type ManifestEntry } from './manifest.js';

/**
 * Remembers each file's sha256 by identity, size and modification time, so a second scan of a
 * mostly unchanged world (the next backup, a migration's second pass) hashes only what changed.
 * A cache made from `previous` takes over its hits as they are asked for: scanning into a fresh
 * one keeps exactly the files that still exist.
 */
export class HashCache {
  private readonly known = new Map<string, { key: string; sha256: string }>();

  constructor(private previous?: HashCache) {}

  /** Stops consulting the cache this one was made from, so what it did not take over can go. */
  detach(): void {
    this.previous = undefined;
  }

  get(path: string, key: string): string | undefined {
    const hit = this.known.get(path);
    if (hit?.key === key) return hit.sha256;
    const inherited = this.previous?.get(path, key);
    if (inherited) this.set(path, key, inherited);
    return inherited;
  }

  set(path: string, key: string, sha256: string): void {
    this.known.set(path, { key, sha256 });
  }
}

/**
 * What a cached hash is valid for: the file's identity, size, modification time and change time.
 * The change time is the kernel's own: a write that puts the modification time back (`touch -r`)
 * still moves it, so such a file is hashed again.
 */
export const hashKeyOf = (st: BigIntStats) => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

/** Records the sha256 of a file just written (its content was checked as it was written). */
export async function rememberHash(cache: HashCache, path: string, sha256: string): Promise<void> {
  cache.set(path, hashKeyOf(await lstat(path, { bigint: true })), sha256);
}

/*
 * A world being scanned belongs to a game that may swap a directory for a symlink at any moment.
 * So the scan never opens a path by name from the root: each directory is held open and what it
 * holds is reached as `/proc/self/fd/<fd>/<name>` with O_NOFOLLOW, which the kernel resolves to
 * that very directory. A symlink, wherever it turns up, is never followed.
 */
const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** O_NONBLOCK: a FIFO must not hang the scan; regular files ignore it. */
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const inDir = (dir: FileHandle, name = '') => (name ? `/proc/self/fd/${dir.fd}/${name}` : `/proc/self/fd/${dir.fd}`);
const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/** Opens `name` in `dir` as a directory or regular file; undefined when it is something else (it became a symlink, say). */
async function openIn(dir: FileHandle, name: string, directory: boolean): Promise<FileHandle | undefined> {
  try {
    const handle = await open(inDir(dir, name), directory ? dirFlags : fileFlags);
    if (directory || (await handle.stat()).isFile()) return handle;
    await handle.close();
    return undefined;
  } catch (e) {
    if (errnoOf(e) === 'ELOOP' || errnoOf(e) === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * Opens the regular file at `path` (a manifest path) under `root`, walking it by held directory
 * fds: a symlink anywhere on the way fails it (ENOENT), so a file outside the root is never read.
 */
export async function openTreeFile(root: string, path: string): Promise<FileHandle> {
  const names = path.split('/');
  let dir = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  for (const [i, name] of names.entries()) {
    const last = i === names.length - 1;
    let next: FileHandle | undefined;
    try {
      next = await openIn(dir, name, !last);
    } finally {
      await dir.close();
    }
    if (!next) break;
    if (last) return next;
    dir = next;
  }
  throw Object.assign(new Error(`${path}: not a regular file inside the tree (a symlink or special file is on its way)`), { code: 'ENOENT' });
}

/** Bytes read at a time while hashing. */
const hashReadBytes = 1024 * 1024;

/** Two read buffers one scan hashes every file with, one file after another. */
type HashBuffers = [Buffer, Buffer];

/**
 * Hashes a file from its start, reading into two buffers in turn so the next read runs while one
 * is hashed. A read stream's 64 KiB chunks, each a new buffer, made hashing a world at a
 * snapshot's open a fifth of a migration; two new 1 MiB buffers per file then cost the Agent more
 * in allocation and garbage collection than the hash itself, so a scan's files share them.
 */
async function sha256OfHandle(handle: FileHandle, buffers: HashBuffers): Promise<string> {
  const hash = createHash('sha256');
  let [next, spare] = buffers;
  let position = 0;
  let reading = handle.read(next, 0, hashReadBytes, position);
  for (;;) {
    const { bytesRead } = await reading;
    if (bytesRead === 0) return hash.digest('hex');
    const filled = next;
    [next, spare] = [spare, filled];
    position += bytesRead;
    reading = handle.read(next, 0, hashReadBytes, position);
    hash.update(filled.subarray(0, bytesRead));
  }
}

/**
 * Files of one directory looked at at once. Each is a few system calls on libuv's thread pool
 * (lstat, open, fstat, close); one after the other they left it idle, and listing a world of
 * 1,024 region files took 0.19 s, most of an incremental backup's time.
 */
const filesAtOnce = 16;

/** What one name of a directory turned out to be: a file's entry, a directory to walk in its turn, or nothing to keep. */
type Looked = { file: ManifestEntry } | { directory: true } | undefined;

/**
 * Lists a server's files as a manifest, in path order with every directory before what it holds,
 * hashing each file. `.cairn` (the installed software) and the Agent's upload temporaries are left out; symbolic links and special
 * files are skipped (also one a directory or file turned into during the scan): a backup holds
 * regular files and directories only. With `hash: false` no file is read: a file's sha256 is the
 * cache's, or empty. A directory's files are looked at several at once; they are hashed one
 * at a time (the scan's two read buffers are shared), and its directories walked in turn.
 */
export async function scanTree(root: string, cache?: HashCache, { hash = true }: { hash?: boolean } = {}): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  let buffers: HashBuffers | undefined;
  let hashing: Promise<unknown> = Promise.resolve();
  const hashOf = (handle: FileHandle): Promise<string> => {
    const run = hashing.then(() => sha256OfHandle(handle, (buffers ??= [Buffer.allocUnsafe(hashReadBytes), Buffer.allocUnsafe(hashReadBytes)])));
    hashing = run.catch(() => undefined);
    return run;
  };
  async function lookAt(dir: FileHandle, full: string, path: string, name: string): Promise<Looked> {
    const st = await lstat(inDir(dir, name), { bigint: true });
    if (st.isDirectory()) return { directory: true };
    if (!st.isFile()) return undefined;
    const handle = await openIn(dir, name, false);
    if (!handle) return undefined;
    try {
      const opened = await handle.stat({ bigint: true });
      const key = hashKeyOf(opened);
      let sha256 = cache?.get(full, key) ?? '';
      if (!sha256 && hash) {
        sha256 = await hashOf(handle);
        cache?.set(full, key, sha256);
      }
      return { file: { path, type: 'FILE', size: Number(opened.size), mode: Number(opened.mode & 0o7777n), sha256 } };
    } finally {
      await handle.close();
    }
  }
  async function walk(dir: FileHandle, dirPath: string, prefix: string): Promise<void> {
    const names = (await readdir(inDir(dir))).sort().filter((name) => !((prefix === '' && name === softwareDir) || name.startsWith(uploadTempPrefix)));
    const pathOf = (name: string) => (prefix ? `${prefix}/${name}` : name);
    const looked = await pMap(names, (name) => lookAt(dir, join(dirPath, name), pathOf(name), name), { concurrency: filesAtOnce });
    for (const [i, seen] of looked.entries()) {
      if (!seen) continue;
      if ('file' in seen) {
        entries.push(seen.file);
        continue;
      }
      const handle = await openIn(dir, names[i], true);
      if (!handle) continue;
      try {
        const opened = await handle.stat({ bigint: true });
        entries.push({ path: pathOf(names[i]), type: 'DIRECTORY', size: 0, mode: Number(opened.mode & 0o7777n), sha256: '' });
        await walk(handle, join(dirPath, names[i]), pathOf(names[i]));
      } finally {
        await handle.close();
      }
    }
  }
  const rootHandle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await walk(rootHandle, root, '');
  } finally {
    await rootHandle.close();
  }
  return entries;
}
