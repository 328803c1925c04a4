import { del, get, post } from './http';
import { putWithProgress, type UploadProgressListener } from './upload';
import { sendInChunks, type SessionOffset } from './upload-session';

/** The largest file written with one PUT of its content; anything larger goes through an upload session. */
export const singlePutBytes = 64 * 1024 * 1024;

/** Writes a file of any size through the server's resumable upload API (POST, then PUTs at an offset; upload-session.ts). */
export function resumableUpload(serverId: string, path: string, file: Blob, onProgress: UploadProgressListener): Promise<void> {
  const uploads = `/servers/${encodeURIComponent(serverId)}/files/uploads`;
  const at = (id: string) => `${uploads}/${encodeURIComponent(id)}`;
  return sendInChunks({
    begin: (target, size) => post<SessionOffset>(uploads, { path: target, size }),
    send: (id, offset, chunk, onSent) => putWithProgress<SessionOffset>(at(id), { offset }, chunk, (sent) => onSent(sent)),
    status: (id) => get<SessionOffset>(at(id)),
    cancel: (id) => del(at(id)),
  }, path, file, onProgress);
}
