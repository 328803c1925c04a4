import type { ResponsePayload } from '../../src/shared/link/messages.js';
import type { AgentLinkClient } from '../../src/agent/link/link-client.js';
import { checkUploadTarget, placeUpload } from '../../src/agent/files/upload-place.js';
import { UploadSessions, type UploadRecord } from '../../src/agent/files/upload-sessions.js';

const answer = (r: UploadRecord): ResponsePayload => ({
  payload: 'uploadState',
  uploadState: { uploadId: r.uploadId, path: r.path, size: r.size, offset: r.offset, createdUnixMs: r.createdAt, touchedUnixMs: Math.round(r.touchedAt), completed: r.completed },
});

/** A FakeAgent's resumable uploads: the Agent's own session store and placement, without disk limits. */
export function handleFakeUploadSessions(client: AgentLinkClient, dataDir: string, rootOf: (serverId: string) => Promise<string>): void {
  const sessions = new UploadSessions(dataDir);
  client.handle('uploadBegin', async ({ serverId, uploadId, path, size }) => {
    await checkUploadTarget(await rootOf(serverId), path, undefined);
    return answer(await sessions.begin(serverId, uploadId, path, size));
  });
  client.handle('uploadAppend', async ({ serverId, uploadId, offset, data }) => answer(await sessions.append(serverId, uploadId, offset, data)));
  client.handle('uploadStatus', async ({ serverId, uploadId }) => answer(await sessions.status(serverId, uploadId)));
  client.handle('uploadCancel', async ({ serverId, uploadId }) => {
    await sessions.cancel(serverId, uploadId);
    return {};
  });
  client.handle('uploadComplete', async ({ serverId, uploadId }) => {
    const root = await rootOf(serverId);
    return answer(await sessions.complete(serverId, uploadId, async (part, r) => {
      await placeUpload({ root, path: r.path, part, size: r.size });
    }));
  });
}
