import type { BlobStore } from './blob-store.js';
import { totalBytes, type BackupManifest } from './manifest.js';
import { openTreeFile, scanTree, type HashCache } from './scan.js';

export interface TreeBackupResult {
  manifest: BackupManifest;
  /** Bytes of every file in the backup. */
  sizeBytes: number;
  /** Bytes the backup added to the store (blobs it did not have). */
  storedBytes: number;
  fileCount: number;
}

/**
 * Backs up a directory into a store on the same machine: every file whose content the store
 * lacks becomes a blob, then the manifest is written (last, so a backup cut off midway, also by
 * `signal`, has no manifest and its blobs are collected as garbage).
 */
export async function backupTree(root: string, store: BlobStore, backupId: string, at: string, cache?: HashCache, signal?: AbortSignal): Promise<TreeBackupResult> {
  const entries = await scanTree(root, cache);
  let storedBytes = 0;
  for (const e of entries) {
    signal?.throwIfAborted();
    if (e.type !== 'FILE' || (await store.hasBlob(e.sha256))) continue;
    // Opened by held directory fds: a directory the game swapped for a symlink since the scan fails the backup, never reads outside the root.
    const file = await openTreeFile(root, e.path);
    try {
      storedBytes += await store.putBlob(e.sha256, file.createReadStream());
    } finally {
      await file.close();
    }
  }
  const manifest: BackupManifest = { formatVersion: 1, backupId, createdAt: at, entries };
  signal?.throwIfAborted();
  await store.putManifest(manifest);
  return { manifest, sizeBytes: totalBytes(entries), storedBytes, fileCount: entries.filter((e) => e.type === 'FILE').length };
}
