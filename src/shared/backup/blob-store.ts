import type { Readable } from 'node:stream';
import type { BackupManifest } from './manifest.js';

/** The content a blob's name promises is not what arrived (or what is stored). */
export class ChecksumMismatchError extends Error {
  constructor(readonly expected: string, readonly actual: string) {
    super(`sha256 mismatch: expected ${expected}, got ${actual}`);
  }
}

/** What an unnamed put stored: the content's sha256 and size, and the bytes added (0 when the blob was there already). */
export interface UnnamedBlob {
  sha256: string;
  size: number;
  storedBytes: number;
}

/** Whether a blob is stored, answered from what a store learnt beforehand where it can. */
export interface BlobLookup {
  hasBlob(sha256: string): Promise<boolean>;
}

/**
 * One destination's content-addressed store: manifests by backup id and blobs by the sha256 of
 * their (uncompressed) content, shared by every backup of the destination. Implemented on a
 * filesystem (a Node directory, the Controller's data dir), on GridFS and on S3 (see docs/backups.md).
 */
export interface BlobStore {
  hasBlob(sha256: string): Promise<boolean>;
  /**
   * Answers `hasBlob` for the blobs among `sha256s` more cheaply than one request each, where the
   * store can (S3: a listing of its blobs, bounded by their number). Stores that answer `hasBlob`
   * locally lack it.
   */
  blobLookup?(sha256s: readonly string[]): Promise<BlobLookup>;
  /**
   * Stores `content` as blob `sha256`, checking the hash as it streams (ChecksumMismatchError and
   * nothing stored on a mismatch). Answers the bytes it added: 0 when the blob was there already.
   */
  putBlob(sha256: string, content: AsyncIterable<Uint8Array>): Promise<number>;
  /**
   * Stores `content` as the blob of whatever sha256 it turns out to have, hashed as it streams: for
   * a file nobody hashed before it was read (a first backup). Stores that can write only under a
   * name known beforehand lack it.
   */
  putUnnamedBlob?(content: AsyncIterable<Uint8Array>): Promise<UnnamedBlob>;
  /** The blob's uncompressed content; the stream fails with ChecksumMismatchError if it is damaged. */
  readBlob(sha256: string): Readable;
  deleteBlob(sha256: string): Promise<void>;
  listBlobs(): AsyncIterable<string>;
  putManifest(manifest: BackupManifest): Promise<void>;
  readManifest(backupId: string): Promise<BackupManifest | undefined>;
  deleteManifest(backupId: string): Promise<void>;
  listManifests(): AsyncIterable<string>;
  /**
   * Removes temporary files of writes that never finished (a process killed mid-backup) not
   * touched for `idleMs`; answers how many went. Stores whose writes leave nothing behind lack it.
   */
  removePartials?(idleMs: number): Promise<number>;
}

/**
 * A temporary file this old belongs to no write still under way: a blob streams on without pause,
 * so even a huge one touches its file far more often than this.
 */
export const partialIdleMs = 60 * 60_000;

export interface CollectOptions {
  /** How long a temporary file must have been left alone to go; 0 when no backup can be writing (at start). */
  partialsIdleMs?: number;
  /** Whether a backup's manifest is dead weight (its backup FAILED): it is removed and keeps no blob. */
  isDiscarded?: (backupId: string) => Promise<boolean>;
}

/**
 * Removes every blob no manifest references, with the leftovers of interrupted backups: their
 * temporary files and the manifests of backups that failed after writing one. Answers how many
 * blobs went. The caller holds the store alone (no backup writing into it).
 */
export async function collectGarbage(store: BlobStore, options: CollectOptions = {}): Promise<number> {
  await store.removePartials?.(options.partialsIdleMs ?? partialIdleMs);
  const referenced = new Set<string>();
  for await (const id of store.listManifests()) {
    if (await options.isDiscarded?.(id)) {
      await store.deleteManifest(id);
      continue;
    }
    const manifest = await store.readManifest(id);
    for (const e of manifest?.entries ?? []) if (e.type === 'FILE') referenced.add(e.sha256);
  }
  let removed = 0;
  for await (const sha256 of store.listBlobs()) {
    if (referenced.has(sha256)) continue;
    await store.deleteBlob(sha256);
    removed++;
  }
  return removed;
}
