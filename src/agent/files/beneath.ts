import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { uploadTempPrefix } from '../../shared/backup/manifest.js';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { softwareBeside } from '../reconciler/server-paths.js';
import { pathSegments, protectedDir, type PathAccess } from './sandbox.js';

/*
 * Node has no openat(2). Its stand-in: a directory held open by fd is reachable as
 * `/proc/self/fd/<fd>`, a link the kernel resolves to that very directory, wherever it has been
 * renamed since and whatever now sits under its old name. Every step below opens one name
 * relative to a held directory and never follows a symlink the kernel meets on its own: a link
 * is read with readlink and walked again component by component from the server's root, so a
 * game swapping directories for symlinks can never lead the Agent outside its root.
 */

/** How many symlinks one path may pass through (Linux's own limit). */
export const maxSymlinkHops = 40;

const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it. */
export const fileReadFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** `name` in the directory held by `dir`, or the directory itself. */
export const at = (dir: FileHandle, name = ''): string => (name ? `/proc/self/fd/${dir.fd}/${name}` : `/proc/self/fd/${dir.fd}`);

export const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;
const invalid = (message: string) => new AgentError('INVALID_PATH', message);

/** An entry of a server's root, found by the walk: the directory holding it stays open until `close`. */
export interface Place {
  /** The normalised path as the API shows it (`.` for the root). */
  relative: string;
  isRoot: boolean;
  /** The directory holding the entry; the entry itself when `name` is empty. */
  dir: FileHandle;
  /** The entry's name in `dir`; empty when the entry is `dir` itself (the root, or a link to a directory). */
  name: string;
  /** The entry's path through the held directory: the kernel follows no symlink of the game's on it. */
  path: string;
  /** The entry's path from the root with every symlink on the way resolved. */
  resolved: string[];
  close(): Promise<void>;
}

interface Step {
  fd: FileHandle;
  name: string;
}

/** The target of `name` in `dir` when it is a symlink; undefined when it is not one (or is gone). */
async function linkTarget(dir: FileHandle, name: string): Promise<string | undefined> {
  try {
    return await readlink(at(dir, name));
  } catch (e) {
    if (errnoOf(e) === 'EINVAL' || errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
}

async function isNeitherDirectoryNorLink(dir: FileHandle, name: string): Promise<boolean> {
  const info = await lstat(at(dir, name)).catch(() => undefined);
  return !!info && !info.isDirectory() && !info.isSymbolicLink();
}

async function closeAll(steps: readonly Step[]): Promise<void> {
  for (const step of steps) await step.fd.close().catch(() => undefined);
}

async function openRoot(root: string): Promise<FileHandle> {
  try {
    return await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', 'The server has no files on this Node yet.');
    throw e;
  }
}

/**
 * Walks `segments` from `root`, opening every directory on the way relative to its parent's fd.
 * A symlink is resolved by the walk itself: its target's components are walked from the
 * directory holding it (an absolute target naming a place under the root's real path from the
 * root); `..` goes back to the directory the walk came from; a target leading above the root or
 * elsewhere on the host is refused. The final entry is followed only when `followFinal`.
 */
async function walk(root: string, segments: readonly string[], rel: string, followFinal: boolean): Promise<Place> {
  const rootFd = await openRoot(root);
  const stack: Step[] = [{ fd: rootFd, name: '' }];
  const queue = [...segments];
  let hops = 0;
  let realRoot: string | undefined;

  const done = async (name: string): Promise<Place> => {
    const dir = stack[stack.length - 1];
    await closeAll(stack.slice(0, -1));
    const resolved = stack.slice(1).map((s) => s.name);
    return {
      relative: rel, isRoot: stack.length === 1 && name === '', dir: dir.fd, name, path: at(dir.fd, name),
      resolved: name ? [...resolved, name] : resolved, close: () => dir.fd.close(),
    };
  };
  const follow = async (target: string): Promise<void> => {
    if (++hops > maxSymlinkHops) throw invalid(`path: ${rel} has a symlink loop.`);
    let rest = target;
    if (target.startsWith('/')) {
      realRoot ??= await readlink(at(rootFd));
      const prefix = realRoot.endsWith('/') ? realRoot : `${realRoot}/`;
      if (target !== realRoot && !target.startsWith(prefix)) throw invalid(`path: ${rel} is a symlink leading outside the server's root.`);
      rest = target.slice(prefix.length);
      await closeAll(stack.splice(1));
    }
    queue.unshift(...rest.split('/'));
  };

  try {
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        if (stack.length === 1) throw invalid(`path: ${rel} leads outside the server's root.`);
        await stack.pop()!.fd.close();
        continue;
      }
      const top = stack[stack.length - 1].fd;
      if (queue.length === 0) {
        const target = followFinal ? await linkTarget(top, name) : undefined;
        if (target === undefined) return await done(name);
        await follow(target);
        continue;
      }
      let fd: FileHandle;
      try {
        fd = await open(at(top, name), dirFlags);
      } catch (e) {
        const code = errnoOf(e);
        if (code === 'ENOENT') throw new AgentError('NOT_FOUND', `path: the directory of ${rel} does not exist.`);
        // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR (ELOOP on older kernels).
        if (code !== 'ENOTDIR' && code !== 'ELOOP') throw e;
        const target = await linkTarget(top, name);
        if (target !== undefined) {
          await follow(target);
        } else if (await isNeitherDirectoryNorLink(top, name)) {
          throw new AgentError('NOT_A_DIRECTORY', `path: a part of ${rel} is not a directory.`);
        } else {
          // It is being swapped between a directory and a symlink: look again (counted, so a flapping name ends).
          if (++hops > maxSymlinkHops) throw invalid(`path: ${rel} has a symlink loop.`);
          queue.unshift(name);
        }
        continue;
      }
      stack.push({ fd, name });
    }
    return await done('');
  } catch (e) {
    await closeAll(stack);
    throw e;
  }
}

/**
 * Finds `path` (the client's text, checked by `pathSegments`) inside `root`. Reads follow a final
 * symlink that stays inside the root; writes act on the final entry itself, so a symlink there is
 * replaced or removed, never written through. Writes under `.cairn`, also when reached through a
 * symlink, are refused with READ_ONLY; reads of `.cairn` show the installed software. The caller
 * closes the place.
 */
export async function locate(root: string, path: string, access: PathAccess): Promise<Place> {
  const segments = pathSegments(path);
  const rel = segments.join('/') || '.';
  if (access === 'read' && segments[0] === protectedDir) {
    // The software lies beside the root (the game's `.cairn` is only where its view binds it): shown from there.
    const place = await walk(softwareBeside(root), segments.slice(1), rel, true);
    return { ...place, isRoot: false, resolved: [protectedDir, ...place.resolved] };
  }
  const place = await walk(root, segments, rel, access === 'read');
  if (access === 'write' && place.resolved[0] === protectedDir) {
    await place.close();
    throw new AgentError('READ_ONLY', `path: ${protectedDir} holds the installed software and cannot be changed.`);
  }
  return place;
}

/** Runs `work` on the place of `path` and closes it afterwards. */
export async function withPlace<T>(root: string, path: string, access: PathAccess, work: (place: Place) => Promise<T>): Promise<T> {
  const place = await locate(root, path, access);
  try {
    return await work(place);
  } finally {
    await place.close();
  }
}

/** Walks again from the root to `resolved` (names found on disk, not a client's text), following a final symlink. */
export async function locateResolved(root: string, resolved: readonly string[]): Promise<Place> {
  return walk(root, resolved, resolved.join('/') || '.', true);
}

/** Opens the directory that `place` names; NOT_A_DIRECTORY when it is something else (or became a symlink meanwhile). */
export async function openDirectory(place: Place): Promise<FileHandle> {
  if (!place.name) return open(at(place.dir), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    return await open(place.path, dirFlags);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: ${place.relative} does not exist.`);
    if (errnoOf(e) === 'ENOTDIR' || errnoOf(e) === 'ELOOP') throw new AgentError('NOT_A_DIRECTORY', `path: ${place.relative} is not a directory.`);
    throw e;
  }
}

/**
 * Opens the regular file that `place` names for reading. A FIFO, device or socket is refused
 * with NOT_A_FILE without waiting on it (O_NONBLOCK); a symlink put there since the walk fails.
 */
export async function openRegularFile(place: Place): Promise<FileHandle> {
  if (!place.name) throw new AgentError('NOT_A_FILE', `path: ${place.relative} is not a file.`);
  let handle: FileHandle;
  try {
    handle = await open(place.path, fileReadFlags);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: ${place.relative} does not exist.`);
    if (errnoOf(e) === 'ELOOP') throw invalid(`path: ${place.relative} became a symlink while it was opened.`);
    throw e;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new AgentError('NOT_A_FILE', `path: ${place.relative} is not a file.`);
    return handle;
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** Gives what the Agent created to the server's identity (when games run as one), by fd or on the link itself: never through a symlink. */
export async function chownHandle(handle: FileHandle, owner: GameIdentity | null | undefined): Promise<void> {
  if (owner) await handle.chown(owner.uid, owner.gid);
}

/** Creates directory `name` in `dir`, owned by `owner`; EEXIST and ENOENT come through as they are. */
export async function makeDirectoryIn(dir: FileHandle, name: string, owner: GameIdentity | null | undefined, mode = 0o755): Promise<void> {
  await mkdir(at(dir, name), { mode });
  if (!owner) return;
  // Owned through an fd of the directory just made: a link the game put in its place in between is not followed.
  const made = await open(at(dir, name), dirFlags);
  try {
    await chownHandle(made, owner);
  } finally {
    await made.close();
  }
}

/** Temporary files of the Agent's writes; listings and backups leave them out. */
export const tempPrefix = uploadTempPrefix;

/**
 * Replaces `name` in `dir` with a new file that `fill` writes: a temporary file is created beside
 * it (O_EXCL|O_NOFOLLOW: never something planted there), owned by `owner`, synced and renamed
 * over `name`. A symlink at `name` is replaced itself, never written through; a reader never sees
 * half a file.
 */
export async function replaceFileIn(dir: FileHandle, name: string, mode: number, owner: GameIdentity | null | undefined, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
  const temp = `${tempPrefix}${randomUUID()}`;
  const handle = await open(at(dir, temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    try {
      await fill(handle);
      await chownHandle(handle, owner);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(at(dir, temp), at(dir, name));
  } catch (e) {
    await unlink(at(dir, temp)).catch(() => undefined);
    throw e;
  }
}

/**
 * Removes `name` from `dir`: a directory with everything in it, walked by fd; a symlink is
 * removed itself, never followed. Something already gone is fine.
 */
export async function removeEntry(dir: FileHandle, name: string): Promise<void> {
  let child: FileHandle;
  try {
    child = await open(at(dir, name), dirFlags);
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') return;
    if (code !== 'ENOTDIR' && code !== 'ELOOP') throw e;
    await unlink(at(dir, name)).catch((u: unknown) => {
      if (errnoOf(u) !== 'ENOENT') throw u;
    });
    return;
  }
  try {
    for (const entry of await readdir(at(child))) await removeEntry(child, entry);
  } finally {
    await child.close();
  }
  await rmdir(at(dir, name)).catch((e: unknown) => {
    if (errnoOf(e) !== 'ENOENT') throw e;
  });
}

/** `removeEntry` of `name` in the directory at `parent` (one of the Agent's own, held open for the walk). */
export async function removeEntryOf(parent: string, name: string): Promise<void> {
  const dir = await open(parent, dirFlags).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  });
  if (!dir) return;
  try {
    await removeEntry(dir, name);
  } finally {
    await dir.close();
  }
}
