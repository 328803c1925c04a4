import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { isAgentRequestError } from '../../link/errors.js';
import type { NodeCalls } from '../../link/node-calls.js';
import { directTransferMs } from '../transfers/direct-transfers.js';
import type { SnapshotSource } from '../transfers/snapshot-source.js';
import type { BlobGrants } from './blob-grants.js';

/**
 * The Agent's refusals that mean its bytes never reached this Controller: it predates SnapshotPush
 * (UNSUPPORTED), or its PutBlob went elsewhere or was refused (PUSH_REFUSED: e.g. a request
 * forwarded from another Controller, whose grant the link's Controller does not hold).
 */
const notHere: ReadonlySet<string> = new Set(['UNSUPPORTED', 'PUSH_REFUSED']);

/**
 * One file of a snapshot streamed by its Agent, as it is, into the Controller's store (PutBlob with
 * a grant for this blob alone), so no byte is cut into link messages, copied and reassembled on the
 * way; the store checks its sha256 and flushes it as for any blob. When the Agent cannot push it
 * here, the Controller reads it over the link as before. Answers the bytes stored.
 */
export async function pushBlob(calls: NodeCalls, grants: BlobGrants, snapshot: Pick<SnapshotSource, 'nodeId' | 'id' | 'read'>, entry: ManifestEntry, store: BlobStore): Promise<number> {
  const timeoutMs = directTransferMs(entry.size);
  const grant = grants.issue(snapshot.nodeId, entry.sha256, store, timeoutMs);
  try {
    await calls.askNode(snapshot.nodeId, {
      body: 'snapshotPush', snapshotPush: { snapshotId: snapshot.id, path: entry.path, grant: { grantId: grant.grantId, key: grant.key } },
    }, { timeoutMs });
  } catch (e) {
    grant.revoke();
    if (!grant.presented && isAgentRequestError(e) && notHere.has(e.code)) return await store.putBlob(entry.sha256, snapshot.read(entry));
    // Presented: what the store said of the bytes (a checksum mismatch, say) is the failure to report.
    if (grant.presented) await grant.stored;
    throw e;
  } finally {
    grant.revoke();
  }
  if (!grant.presented) throw new Error('the Agent answered SnapshotPush without presenting its grant');
  return grant.stored;
}
