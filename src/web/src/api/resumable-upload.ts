import { del, get, post } from './http';
import { isProblem } from './problem';
import { putWithProgress, type UploadProgressListener } from './upload';

/** The largest file written with one PUT of its content; anything larger goes through an upload session. */
export const singlePutBytes = 64 * 1024 * 1024;
/** Bytes per PUT of a session: the API takes at most 64 MiB a request, and a cut costs at most one chunk again. */
export const chunkBytes = 8 * 1024 * 1024;
/** Tries of one chunk before the upload is given up. */
const attempts = 5;

/** What this client reads of the API's Upload. */
interface SessionOffset { id: string; offset: number }

/** A cut connection, a Controller restarting, or an offset the Agent moved past: worth asking where it stands and going on. */
const retryable = (e: unknown) => isProblem(e) && (e.status === 0 || e.code === 'upload_offset_mismatch' || [502, 503, 504].includes(e.status));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes a file of any size through an upload session (POST /servers/{id}/files/uploads, then
 * PUTs of `chunkBytes` at the offset the Agent holds). After a cut it asks the session's offset and
 * sends from there; the file appears whole, in one rename, when its last byte is in. A refusal that
 * retrying cannot mend cancels the session so its partial data does not wait a day for the sweep.
 */
export async function resumableUpload(serverId: string, path: string, file: Blob, onProgress: UploadProgressListener): Promise<void> {
  const uploads = `/servers/${encodeURIComponent(serverId)}/files/uploads`;
  let session = await post<SessionOffset>(uploads, { path, size: file.size });
  const at = `${uploads}/${encodeURIComponent(session.id)}`;
  let failures = 0;
  while (session.offset < file.size) {
    try {
      if (failures > 0) session = await get<SessionOffset>(at);
      const from = session.offset;
      if (from >= file.size) break;
      session = await putWithProgress<SessionOffset>(at, { offset: from }, file.slice(from, from + chunkBytes), (sent) => onProgress(from + sent, file.size));
      failures = 0;
    } catch (e) {
      if (!retryable(e) || ++failures >= attempts) {
        // The refusal is what the person needs to read; a cancel that fails too leaves data the Agent sweeps after a day.
        await del(at).catch(() => undefined);
        throw e;
      }
      await pause(1000 * failures);
    }
  }
  onProgress(file.size, file.size);
}
