import type { BlobStore } from '../../shared/backup/blob-store.js';

/**
 * One blob's upload as the Agent carries it out: every part but the last `partBytes` long, each
 * PUT to its URL in order (one URL: the whole object in one request). The Controller completes it
 * with the ETags the Agent answered, or aborts it.
 */
export interface UploadPlan {
  partBytes: number;
  urls: string[];
  complete(etags: string[]): Promise<void>;
  /** Drops what an unfinished upload left; never an object another upload may have completed. */
  abort(): Promise<void>;
}

/**
 * A blob store the Agents reach themselves with requests it presigns (S3): the Controller keeps
 * the credentials and decides which objects, the bytes go between the Node and the store.
 */
export interface DirectBlobs {
  /**
   * An upload of blob `sha256`, the file's `sizeBytes` bytes as they are (the store refuses any
   * others where it can check them), its URLs valid for `expiresInSeconds` (at most an hour).
   */
  planUpload(sha256: string, sizeBytes: number, expiresInSeconds: number): Promise<UploadPlan>;
  /** A GET of blob `sha256`, valid for `expiresInSeconds`. */
  downloadUrl(sha256: string, expiresInSeconds: number): Promise<string>;
}

export const isDirect = (store: BlobStore): store is BlobStore & DirectBlobs => typeof (store as Partial<DirectBlobs>).planUpload === 'function';
