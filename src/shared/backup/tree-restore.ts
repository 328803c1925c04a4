import { createWriteStream } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from './blob-store.js';
import { checkManifestPath, type BackupManifest } from './manifest.js';

/**
 * Writes a backup's files into an empty directory from a store on the same machine. Each blob's
 * sha256 is checked as it streams (a damaged store fails the restore, never a silent bad world).
 */
export async function restoreTree(store: BlobStore, manifest: BackupManifest, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const e of manifest.entries) {
    const path = join(dir, ...checkManifestPath(e.path).split('/'));
    if (e.type === 'DIRECTORY') {
      await mkdir(path, { recursive: true });
      continue;
    }
    await pipeline(store.readBlob(e.sha256), createWriteStream(path));
    await chmod(path, e.mode & 0o7777);
  }
  // Directory modes last: a read-only directory must still take its files first.
  for (const e of manifest.entries) if (e.type === 'DIRECTORY') await chmod(join(dir, ...e.path.split('/')), e.mode & 0o7777);
}
