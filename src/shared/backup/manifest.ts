import type { ManifestEntry as ManifestEntryFields } from '../link/generated/cairn/agent/v1/ManifestEntry.js';

/** One file or directory of a backup, a snapshot or a stage (the link's ManifestEntry, its type closed). */
export type ManifestEntry = Omit<ManifestEntryFields, 'type' | 'size'> & { type: 'FILE' | 'DIRECTORY'; size: number };

/** Everything a backup holds: its files' metadata; their content is in blobs named by sha256. */
export interface BackupManifest {
  formatVersion: 1;
  backupId: string;
  createdAt: string;
  entries: ManifestEntry[];
}

export class InvalidManifestPathError extends Error {}

/** The installed software is never part of a backup: a restore installs it again from the template. */
export const softwareDir = '.cairn';

/** The Agent's temporary files of writes in progress: half an upload is never part of a backup. */
export const uploadTempPrefix = '.cairn-upload-';

/**
 * A manifest path is relative, "/"-separated and stays inside the server's root; anything else
 * (from a damaged store or a hostile peer) is refused before it reaches the filesystem.
 */
export function checkManifestPath(path: string): string {
  const parts = path.split('/');
  const bad = path.length === 0 || path.length > 4096 || path.includes('\0') || path.includes('\\')
    || parts.some((p) => p === '' || p === '.' || p === '..') || parts[0] === softwareDir;
  if (bad) throw new InvalidManifestPathError(`not a path inside a server's files: ${JSON.stringify(path.slice(0, 200))}`);
  return path;
}

export const totalBytes = (entries: readonly ManifestEntry[]) => entries.reduce((sum, e) => sum + (e.type === 'FILE' ? e.size : 0), 0);

/** Does `path` lie inside one of `dirs`? */
const insideAny = (path: string, dirs: ReadonlySet<string>) => {
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) if (dirs.has(path.slice(0, i))) return true;
  return false;
};

/**
 * What turns `have` into `want`: files to copy (new, or different content or mode), directories
 * to create, and the topmost paths to remove (removing a directory removes what it holds; a path
 * whose type changed is removed and then written again).
 */
export function manifestDelta(have: readonly ManifestEntry[], want: readonly ManifestEntry[]): { copy: ManifestEntry[]; remove: string[]; directories: ManifestEntry[] } {
  const held = new Map(have.map((e) => [e.path, e]));
  const wanted = new Map(want.map((e) => [e.path, e]));
  const copy = want.filter((e) => {
    if (e.type !== 'FILE') return false;
    const h = held.get(e.path);
    return !h || h.type !== 'FILE' || h.sha256 !== e.sha256 || h.mode !== e.mode;
  });
  const directories = want.filter((e) => e.type === 'DIRECTORY' && held.get(e.path)?.type !== 'DIRECTORY');
  const removed = new Set<string>();
  const remove: string[] = [];
  for (const h of [...have].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (wanted.get(h.path)?.type === h.type || insideAny(h.path, removed)) continue;
    removed.add(h.path);
    remove.push(h.path);
  }
  return { copy, remove, directories };
}
