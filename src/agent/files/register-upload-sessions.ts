import { statfs } from 'node:fs/promises';
import type { Logger } from '../../shared/logger.js';
import type { ResponsePayload } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { Reconciler } from '../reconciler/reconciler.js';
import { checkUploadTarget, placeUpload, refuseOverLimit } from './upload-place.js';
import { UploadSessions, type UploadRecord } from './upload-sessions.js';
import { serverHome } from '../reconciler/server-paths.js';

/** How often untouched uploads are looked for, beside the sweep at start. */
export const uploadSweepEveryMs = 60 * 60 * 1000;

export interface UploadSessionDeps {
  dataDir: string;
  link: AgentLinkClient;
  reconciler: Reconciler;
  logger: Logger;
  rootOf(serverId: string): string;
  ownerOf(serverId: string): GameIdentity | null;
  secretFileOf(serverId: string): string | undefined;
}

const answer = (record: UploadRecord): ResponsePayload => ({
  payload: 'uploadState',
  uploadState: {
    uploadId: record.uploadId, path: record.path, size: record.size, offset: record.offset,
    createdUnixMs: record.createdAt, touchedUnixMs: Math.round(record.touchedAt), completed: record.completed,
  },
});

/** Free bytes of the disk holding the server's uploads (and, but for odd mounts, its root). */
const freeBytes = (path: string) => statfs(path).then((s) => s.bavail * s.bsize, () => Number.POSITIVE_INFINITY);

/**
 * Resumable uploads on the link (UploadBegin, UploadAppend, UploadStatus, UploadCancel,
 * UploadComplete), and their sweep: at start and hourly. Answers the function that stops the sweep.
 */
export function registerUploadSessions(deps: UploadSessionDeps): () => void {
  const { link, reconciler, logger } = deps;
  const sessions = new UploadSessions(deps.dataDir);
  const sweep = () => void sessions.sweep().then((removed) => {
    if (removed > 0) logger.info({ event: 'uploads_swept', removed }, 'removed uploads untouched for a day');
  }, (err: unknown) => logger.warn({ event: 'uploads_sweep_failed', err }, 'sweeping untouched uploads failed'));
  sweep();
  const timer = setInterval(sweep, uploadSweepEveryMs);
  timer.unref();

  link.handle('uploadBegin', async ({ serverId, uploadId, path, size }) => {
    const root = deps.rootOf(serverId);
    if (!Number.isSafeInteger(size) || size < 0) throw new AgentError('INVALID_REQUEST', 'size: a whole number of bytes, 0 or more.');
    const replaces = await checkUploadTarget(root, path, deps.secretFileOf(serverId));
    // Uploads under way will land too: what they need is held against the limit as well.
    const room = reconciler.diskRoom(serverId);
    refuseOverLimit(size - replaces, room === undefined ? undefined : room - await sessions.pendingBytes(serverId));
    const free = await freeBytes(serverHome(deps.dataDir, serverId));
    if (size > free) throw new AgentError('NO_SPACE', `size: the Node's disk has ${free} bytes free; the upload needs ${size}.`);
    return answer(await sessions.begin(serverId, uploadId, path, size));
  });

  link.handle('uploadAppend', async ({ serverId, uploadId, offset, data }) => {
    deps.rootOf(serverId);
    return answer(await sessions.append(serverId, uploadId, offset, data));
  });

  link.handle('uploadStatus', async ({ serverId, uploadId }) => {
    deps.rootOf(serverId);
    return answer(await sessions.status(serverId, uploadId));
  });

  link.handle('uploadCancel', async ({ serverId, uploadId }) => {
    deps.rootOf(serverId);
    await sessions.cancel(serverId, uploadId);
    return {};
  });

  link.handle('uploadComplete', async ({ serverId, uploadId }) => {
    const root = deps.rootOf(serverId);
    let grew = 0;
    const record = await sessions.complete(serverId, uploadId, async (part, upload) => {
      grew = await placeUpload({
        root, path: upload.path, part, size: upload.size, owner: deps.ownerOf(serverId), hidden: deps.secretFileOf(serverId), room: reconciler.diskRoom(serverId),
      });
    });
    // As for a single upload: the next write is held against this one at once; the walk corrects it.
    reconciler.disk.grew(serverId, grew);
    void reconciler.measureDisk(serverId);
    return answer(record);
  });

  return () => clearInterval(timer);
}
