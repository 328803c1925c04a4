import { eachFile } from '../transfers/pipelined.js';
import { checkManifestPath } from '../../../shared/backup/manifest.js';
import type { BackupDestinationDoc, BackupDoc } from '../../store/records.js';
import type { NodeCalls } from '../../link/node-calls.js';
import { isDirect } from '../../store/direct-blobs.js';
import { fetchDirect } from '../transfers/direct-transfers.js';
import { StageSink } from '../transfers/stage-sink.js';
import { areaTeamOf, nodeAreaPath } from './backup-area.js';
import type { BackupDestinations } from './destinations.js';

/** The backup's manifest is gone from its destination: nothing can be staged from it. */
export class MissingManifestError extends Error {
  constructor() {
    super('the backup\'s manifest is missing from its destination');
    this.name = 'MissingManifestError';
  }
}

/**
 * A stage on the server's Node holding a backup's files, ready to commit: filled by the Agent
 * itself from a NODE_DIRECTORY backup kept there or from S3 with GETs the Controller presigned,
 * or file by file through the Controller from its own store (CONTROLLER); each file is checked
 * against its sha256. A stage that could not be filled is aborted.
 * Restores and updates (install, rollback) both go through it.
 */
export async function stageBackup(
  calls: NodeCalls, destinations: Pick<BackupDestinations, 'storeOf'>, nodeId: string, serverId: string, backup: BackupDoc, destination: BackupDestinationDoc,
): Promise<StageSink> {
  if (destination.kind === 'NODE_DIRECTORY') {
    return StageSink.fromLocal(calls, nodeId, serverId, nodeAreaPath(destination.path ?? '', areaTeamOf(backup)), backup._id);
  }
  const stage = await StageSink.begin(calls, nodeId, serverId);
  try {
    await fill(calls, stage, destinations, backup, destination);
  } catch (e) {
    await stage.abort();
    throw e;
  }
  return stage;
}

async function fill(calls: NodeCalls, stage: StageSink, destinations: Pick<BackupDestinations, 'storeOf'>, backup: BackupDoc, destination: BackupDestinationDoc): Promise<void> {
  const store = destinations.storeOf(destination, areaTeamOf(backup));
  const manifest = await store.readManifest(backup._id);
  if (!manifest) throw new MissingManifestError();
  // A directory that holds something is made by its contents' writes; only empty ones are sent (one request each).
  const holding = new Set(manifest.entries.map((e) => e.path.slice(0, Math.max(0, e.path.lastIndexOf('/')))));
  for (const entry of manifest.entries) checkManifestPath(entry.path);
  for (const entry of manifest.entries) if (entry.type === 'DIRECTORY' && !holding.has(entry.path)) await stage.directory(entry);
  await eachFile(manifest.entries.filter((e) => e.type === 'FILE'), async (entry) => {
    if (isDirect(store)) await fetchDirect(calls, stage, entry, store);
    else await stage.writeFile(entry, store.readBlob(entry.sha256), true);
  });
}
