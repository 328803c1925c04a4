import type { Upload } from './types.js';
/** Bytes per PUT of a session: the API takes at most 64 MiB a request, and a cut costs at most one chunk again. */
export const chunkBytes = 8 * 1024 * 1024;
/** Tries of one chunk before the upload is given up. */
const attempts = 5;

/** What this client reads of the API's Upload. */
export type SessionOffset = Pick<Upload, 'id' | 'offset'>;

/** The upload session endpoints, as the loop below calls them (HTTP in resumable-upload.ts). */
export interface SessionCalls {
  begin: (path: string, size: number) => Promise<SessionOffset>;
  /** PUTs `chunk` at `offset`, telling the bytes of it sent so far. */
  send: (id: string, offset: number, chunk: Blob, onSent: (sent: number) => void) => Promise<SessionOffset>;
  status: (id: string) => Promise<SessionOffset>;
  cancel: (id: string) => Promise<void>;
}

/**
 * A cut connection (the client's problem of status 0), a Controller restarting, or an offset the
 * Agent moved past: worth asking where it stands and going on. Read from the ApiProblem's fields
 * without importing it, so this loop is tested outside the bundle.
 */
function retryable(e: unknown): boolean {
  const { status, code } = (e ?? {}) as { status?: number; code?: string };
  return code === 'upload_offset_mismatch' || [0, 502, 503, 504].includes(status ?? -1);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `file` through an upload session: chunks of `chunkBytes` at the offset the Agent holds.
 * After a cut it asks the session's offset and sends from there; the file appears whole, in one
 * rename, when its last byte is in. A refusal that retrying cannot mend, or the last failed try,
 * cancels the session so its partial data does not wait a day for the sweep.
 */
export async function sendInChunks(calls: SessionCalls, path: string, file: Blob, onProgress: (sent: number, total: number) => void, pauseMs = 1000): Promise<void> {
  let session = await calls.begin(path, file.size);
  const { id } = session;
  let failures = 0;
  while (session.offset < file.size) {
    try {
      if (failures > 0) session = await calls.status(id);
      const from = session.offset;
      if (from >= file.size) break;
      session = await calls.send(id, from, file.slice(from, from + chunkBytes), (sent) => onProgress(from + sent, file.size));
      failures = 0;
    } catch (e) {
      if (!retryable(e) || ++failures >= attempts) {
        // The refusal is what the person needs to read; a cancel that fails too leaves data the Agent sweeps after a day.
        await calls.cancel(id).catch(() => undefined);
        throw e;
      }
      await pause(pauseMs * failures);
    }
  }
  onProgress(file.size, file.size);
}
