import { createReadStream, type Stats } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { Upload } from './api-types.js';
import type { CliClient } from './client.js';
import { credentialsPath } from './credentials.js';
import { ApiError } from './errors.js';

/** Files larger than a single PUT takes (64 MiB) go through an upload session. */
export const resumableAboveBytes = 64 * 1024 * 1024;
/** Each request of a session carries this much: a cut costs at most one piece. */
const pieceBytes = 16 * 1024 * 1024;

/** Beside the credentials: the session of each upload under way, so the same `cairn cp` again continues it. */
const statePath = () => join(dirname(credentialsPath()), 'uploads.json');

type UploadState = Partial<Record<string, { uploadId: string; savedAt: string }>>;

async function loadState(): Promise<UploadState> {
  try {
    return JSON.parse(await readFile(statePath(), 'utf8')) as UploadState;
  } catch {
    return {};
  }
}

/** Read, changed and written back whole (beside, then renamed): two copies at once lose at most a resume, never the file. */
async function changeState(change: (state: UploadState) => void): Promise<void> {
  const state = await loadState();
  change(state);
  const path = statePath();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(`${path}.tmp`, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

/** The same file (by size and mtime) to the same place on the same Controller resumes; anything else begins anew. */
const keyOf = (client: CliClient, serverId: string, path: string, info: Stats) => [client.url, serverId, path, info.size, Math.round(info.mtimeMs)].join('|');

/** The saved session, if the Controller still has it unfinished. */
async function savedUpload(client: CliClient, serverId: string, key: string): Promise<Upload | undefined> {
  const saved = (await loadState())[key];
  if (!saved) return undefined;
  try {
    return await client.get<Upload>(`/servers/${serverId}/files/uploads/${saved.uploadId}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return undefined;
    throw e;
  }
}

/**
 * Uploads `local` to `path` in 16 MiB pieces through an upload session. Cut (Ctrl-C, a lost
 * network), the session stays on the Node; the same command again asks where it stands and
 * sends the rest. `onResume` hears where a resumed upload continues.
 */
export async function resumableUpload(client: CliClient, serverId: string, path: string, local: string, info: Stats, onResume: (offset: number) => void): Promise<void> {
  const key = keyOf(client, serverId, path, info);
  let upload = await savedUpload(client, serverId, key);
  if (upload && upload.offset > 0) onResume(upload.offset);
  if (!upload) {
    upload = await client.post<Upload>(`/servers/${serverId}/files/uploads`, { path, size: info.size });
    const uploadId = upload.id;
    await changeState((state) => {
      state[key] = { uploadId, savedAt: new Date().toISOString() };
    });
  }
  while (!upload.completed) {
    const start = upload.offset;
    const end = Math.min(start + pieceBytes, info.size);
    try {
      const res = await client.request('PUT', `/servers/${serverId}/files/uploads/${upload.id}?offset=${start}`, {
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(end - start) },
        // Nothing left to send (a completion to try again): an empty body.
        body: end > start ? Readable.toWeb(createReadStream(local, { start, end: end - 1 })) as ReadableStream : new Uint8Array(0),
        duplex: 'half',
      });
      upload = await res.json() as Upload;
    } catch (e) {
      // Another copy moved the upload on meanwhile: continue from where the Node stands.
      if (!(e instanceof ApiError && e.code === 'upload_offset_mismatch')) throw e;
      upload = await client.get<Upload>(`/servers/${serverId}/files/uploads/${upload.id}`);
    }
  }
  await changeState((state) => {
    delete state[key];
  });
}
