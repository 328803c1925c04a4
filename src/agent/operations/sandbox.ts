import { lstat, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { AgentError } from '../errors.js';

/** The installed software: readable through the files API, never changed by it. */
export const protectedDir = '.cairn';
/** Longest path the files API accepts, in characters. */
export const maxPathLength = 4096;

export type PathAccess = 'read' | 'write';

/** A path of a server, resolved on disk and proven to stay inside the server's root. */
export interface ResolvedPath {
  /** The root's real path. */
  root: string;
  /** The normalised path relative to the root (`.` for the root itself), as the API shows it. */
  relative: string;
  /** True when the path names the root itself. */
  isRoot: boolean;
  /** The real path of the directory holding the entry (the root for the root itself). */
  parent: string;
  /** The entry's name in `parent` (empty for the root). */
  name: string;
  /**
   * Where to act: `parent/name` for writes (a final symlink is replaced or removed, never
   * followed); for reads, the final symlink's real target once it is proven inside the root.
   */
  absolute: string;
}

const invalid = (message: string) => new AgentError('INVALID_PATH', message);

/**
 * Checks a client's path text without touching the disk and returns its segments: no NUL or
 * other control characters, no absolute paths, no backslashes (another platform's separators),
 * no `..` anywhere; `.` and empty segments are dropped. The empty list names the root.
 */
export function pathSegments(path: string): string[] {
  if (typeof path !== 'string' || path.length === 0) throw invalid('path: give a path relative to the server\'s root (`.` is the root).');
  if (path.length > maxPathLength) throw invalid(`path: longer than ${maxPathLength} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) throw invalid('path: control characters (NUL, line breaks, ...) are not allowed.');
  if (path.includes('\\')) throw invalid('path: use `/` as the separator; backslashes are not allowed.');
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) throw invalid('path: must be relative to the server\'s root, not absolute.');
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) throw invalid('path: `..` is not allowed.');
  return segments;
}

const isInside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * Resolves `path` inside `root`. The parent directory is resolved with `realpath` and must stay
 * inside the root's real path, so a symlinked directory anywhere on the way cannot lead out. The
 * final entry is looked at with `lstat`: writes act on the link itself (never on its target);
 * reads follow it only when its target is inside the root too. Writes under `.cairn` (also when
 * reached through a symlink) are refused with READ_ONLY.
 */
export async function resolveInRoot(root: string, path: string, access: PathAccess): Promise<ResolvedPath> {
  const segments = pathSegments(path);
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', 'The server has no files on this Node yet.');
    throw e;
  }
  const rel = segments.join('/') || '.';
  if (segments.length === 0) return { root: realRoot, relative: '.', isRoot: true, parent: realRoot, name: '', absolute: realRoot };

  const name = segments[segments.length - 1];
  let parent: string;
  try {
    parent = await realpath(join(realRoot, ...segments.slice(0, -1)));
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT') throw new AgentError('NOT_FOUND', `path: the directory of ${rel} does not exist.`);
    if (code === 'ENOTDIR') throw new AgentError('NOT_A_DIRECTORY', `path: a part of ${rel} is not a directory.`);
    if (code === 'ELOOP') throw invalid(`path: ${rel} has a symlink loop.`);
    throw e;
  }
  if (!isInside(realRoot, parent)) throw invalid(`path: ${rel} leads outside the server's root.`);
  const parentRel = relative(realRoot, parent);
  if (access === 'write' && (parentRel.split(sep)[0] === protectedDir || (parentRel === '' && name === protectedDir))) {
    throw new AgentError('READ_ONLY', `path: ${protectedDir} holds the installed software and cannot be changed.`);
  }

  const entry = join(parent, name);
  let absolute = entry;
  if (access === 'read') {
    const info = await lstat(entry).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: ${rel} does not exist.`);
      throw e;
    });
    if (info.isSymbolicLink()) {
      const target = await realpath(entry).catch((e: unknown) => {
        if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ELOOP') throw new AgentError('NOT_FOUND', `path: ${rel} is a broken symlink.`);
        throw e;
      });
      if (!isInside(realRoot, target)) throw invalid(`path: ${rel} is a symlink leading outside the server's root.`);
      absolute = target;
    }
  }
  return { root: realRoot, relative: rel, isRoot: false, parent, name, absolute };
}

/** True when `path` (a real path) is inside `root` (a real path). */
export const insideRoot = isInside;
