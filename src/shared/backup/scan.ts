import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { softwareDir, type ManifestEntry } from './manifest.js';

/**
 * Remembers each file's sha256 by identity, size and modification time, so a second scan of a
 * mostly unchanged world (the next backup, a migration's second pass) hashes only what changed.
 */
export class HashCache {
  private readonly known = new Map<string, { key: string; sha256: string }>();

  get(path: string, key: string): string | undefined {
    const hit = this.known.get(path);
    return hit?.key === key ? hit.sha256 : undefined;
  }

  set(path: string, key: string, sha256: string): void {
    this.known.set(path, { key, sha256 });
  }
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
        const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
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
