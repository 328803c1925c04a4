import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { isAgentRequestError } from '../../link/errors.js';
import type { DirectBlobs } from '../../store/direct-blobs.js';
import type { NodeCalls } from '../../link/node-calls.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { StageSink } from './stage-sink.js';

/**
 * How long one file's transfer between a Node and an object store may take: a minute, plus the
 * file at 5 MB/s (the slowest link to a bucket a backup should still finish on).
 */
export const directTransferMs = (sizeBytes: number) => 60_000 + Math.ceil(sizeBytes / 5_000);

/**
 * An Agent older than the Controller does not know the request: the Controller then carries the
 * file itself, so Controllers can be upgraded before their Agents.
 */
const isUnknownToAgent = (e: unknown) => isAgentRequestError(e) && e.code === 'UNSUPPORTED';

/**
 * The presigned URLs outlive the Controller's wait by five minutes (its clock may run behind the
 * store's), and never an hour: a URL that leaked is of use for that long at most. A request begun
 * before it expires runs to its end, but each part of a multipart upload must begin within the
 * hour: a file that takes longer (over ~18 GB at 5 MB/s) fails its backup with the store's refusal.
 */
const urlLifetimeSeconds = (timeoutMs: number) => Math.min(Math.ceil(timeoutMs / 1000) + 300, 3600);

/**
 * One file of a snapshot uploaded by its Agent straight into the store, with requests presigned
 * for exactly that blob and its size (and, in one request, its sha256, which the store checks);
 * the Controller completes a multipart upload only once the Agent answers that every byte matched
 * the manifest's sha256, and aborts it otherwise. Answers the bytes stored.
 */
export async function uploadDirect(calls: NodeCalls, snapshot: SnapshotSource, entry: ManifestEntry, store: BlobStore & DirectBlobs): Promise<number> {
  try {
    return await uploadByAgent(calls, snapshot, entry, store);
  } catch (e) {
    if (!isUnknownToAgent(e)) throw e;
    return store.putBlob(entry.sha256, snapshot.read(entry));
  }
}

async function uploadByAgent(calls: NodeCalls, snapshot: SnapshotSource, entry: ManifestEntry, store: DirectBlobs): Promise<number> {
  const timeoutMs = directTransferMs(entry.size);
  const plan = await store.planUpload(entry.sha256, entry.size, urlLifetimeSeconds(timeoutMs));
  try {
    const answer = await calls.askNode(snapshot.nodeId, {
      body: 'snapshotUpload', snapshotUpload: { snapshotId: snapshot.id, path: entry.path, sha256: entry.sha256, partBytes: plan.partBytes, partUrls: plan.urls },
    }, { timeoutMs });
    if (answer.payload !== 'objectUploaded') throw new Error('the Agent answered SnapshotUpload without what it uploaded');
    await plan.complete(answer.objectUploaded.etags);
    return Number(answer.objectUploaded.storedBytes);
  } catch (e) {
    await plan.abort().catch(() => undefined);
    throw e;
  }
}

/** One file of a backup fetched by the stage's Agent straight from the store (checked there against its sha256 and size). */
export async function fetchDirect(calls: NodeCalls, stage: StageSink, entry: ManifestEntry, store: BlobStore & DirectBlobs): Promise<void> {
  const timeoutMs = directTransferMs(entry.size);
  const url = await store.downloadUrl(entry.sha256, urlLifetimeSeconds(timeoutMs));
  try {
    await calls.askNode(stage.nodeId, {
      body: 'stageFetch', stageFetch: { stageId: stage.id, path: entry.path, url, sha256: entry.sha256, size: entry.size, mode: entry.mode },
    }, { timeoutMs });
  } catch (e) {
    if (!isUnknownToAgent(e)) throw e;
    await stage.writeFile(entry, store.readBlob(entry.sha256), true);
  }
}
