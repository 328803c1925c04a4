import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { softwareDir, type ManifestEntry } from './manifest.js';

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

/** What a cached hash is valid for: the file's identity, size and modification time. */
export const hashKeyOf = (st: BigIntStats) => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;

/** Records the sha256 of a file just written (its content was checked as it was written). */
export async function rememberHash(cache: HashCache, path: string, sha256: string): Promise<void> {
  cache.set(path, hashKeyOf(await lstat(path, { bigint: true })), sha256);
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * Lists a server's files as a manifest, in path order with every directory before what it holds,
 * hashing each file. `.cairn` (the installed software) is left out; symbolic links and special
 * files are skipped: a backup holds regular files and directories only.
 */
export async function scanTree(root: string, cache?: HashCache): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  async function walk(dir: string, prefix: string): Promise<void> {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      if (prefix === '' && name === softwareDir) continue;
      const path = prefix ? `${prefix}/${name}` : name;
      const full = join(dir, name);
      const st = await lstat(full, { bigint: true });
      const mode = Number(st.mode & 0o7777n);
      if (st.isDirectory()) {
        entries.push({ path, type: 'DIRECTORY', size: 0, mode, sha256: '' });
        await walk(full, path);
      } else if (st.isFile()) {
        const key = hashKeyOf(st);
        let sha256 = cache?.get(full, key);
        if (!sha256) {
          sha256 = await sha256OfFile(full);
          cache?.set(full, key, sha256);
        }
        entries.push({ path, type: 'FILE', size: Number(st.size), mode, sha256 });
      }
    }
  }
  await walk(root, '');
  return entries;
}
