import pMap from 'p-map';
import { collectGarbage, type BlobStore } from '../../../shared/backup/blob-store.js';
import { checkManifestPath, totalBytes, type ManifestEntry } from '../../../shared/backup/manifest.js';
import { isDirect } from '../../store/direct-blobs.js';
import type { BackupDestinationDoc, BackupDoc, ServerDoc } from '../../store/records.js';
import type { Logger } from '../../../shared/logger.js';
import type { NodeCalls } from '../../link/node-calls.js';
import { uploadDirect } from '../transfers/direct-transfers.js';
import { SnapshotReads, type ReadCount } from '../transfers/snapshot-reads.js';
import { SnapshotSource } from '../transfers/snapshot-source.js';
import { areaTeamOf } from './backup-area.js';
import type { BackupKind, BackupOutcome } from './backup-runner.js';
import type { DestinationClaims } from './destination-claims.js';
import type { DestinationLocks } from './destination-locks.js';

/**
 * Blobs a backup stores at once. Into the Controller's store each holds a few MiB at most (two
 * frames read straight from the Agent, or two read ranges of 4 MiB over the link) and waits a
 * round trip per file and a flush per blob: with sixteen, the others' bytes fill those waits
 * (eight read a world of 1 MiB files 5-10% slower). Uploaded by the Agent to S3 each is mostly
 * waiting on requests (HEAD, presigning, the PUT), which a dozen at once overlap.
 */
const blobsInFlight = { throughController: 16, byAgent: 12 } as const;

/** Stores a file the Agent had no hash for; its entry takes the hash and size of what arrived, which the blob holds. */
const storeUnnamed = (put: NonNullable<BlobStore['putUnnamedBlob']>, reads: SnapshotReads, entry: ManifestEntry) => async () => {
  const stored = await reads.put(entry, put);
  Object.assign(entry, { sha256: stored.sha256, size: stored.size });
  return stored.storedBytes;
};

/**
 * CONTROLLER and S3, the destinations whose store the Controller holds: a snapshot of the server
 * on its Node, of which only the files whose content the team's area of the destination lacks
 * become blobs, checked against their sha256 on the way: read by the Controller into its own
 * store, or uploaded by the Agent straight into S3 with requests the Controller presigned. A file
 * the Agent has not hashed before (a first backup) is read by the Controller whole and stored
 * under the sha256 of what arrived, where the store can do that (on disk). Then the manifest
 * (last: a backup cut off midway has none, and its blobs are garbage). The snapshot is closed
 * whatever happens, so a quiesced server always resumes.
 */
export class ControllerKind implements BackupKind {
  constructor(
    private readonly calls: NodeCalls,
    private readonly stores: { storeOf(destination: BackupDestinationDoc, teamId: string | undefined): BlobStore },
    private readonly locks: DestinationLocks,
    /** The same across the Controllers sharing the store. */
    private readonly claims: DestinationClaims,
    private readonly records: {
      /** The state of a backup's record; undefined when there is none. */
      stateOf(backupId: string): Promise<BackupDoc['state'] | undefined>;
      /** The teams with backups in the destination (whose areas may hold garbage). */
      teamsIn(destinationId: string): Promise<Iterable<string>>;
    },
    private readonly peers: {
      /** Where the Controller reaches a Node's Agent to read a snapshot straight from it ('' when unknown). */
      hostOf(nodeId: string): Promise<string>;
      logger: Logger;
      count: ReadCount;
    },
  ) {}

  async take(backup: BackupDoc, server: ServerDoc, destination: BackupDestinationDoc, quiesce: boolean): Promise<BackupOutcome> {
    const store = this.stores.storeOf(destination, areaTeamOf(backup));
    return this.locks.shared(destination._id, () => this.claims.writing(destination._id, async () => {
      // Read through the Controller, a file the Agent has no hash for is hashed here as it is stored,
      // not read once more on the Agent beforehand; S3 objects are named by their hash before they are sent.
      const putUnnamed = isDirect(store) ? undefined : store.putUnnamedBlob?.bind(store);
      const snapshot = await SnapshotSource.open(this.calls, backup.nodeId, server._id, { quiesce, unhashed: putUnnamed !== undefined });
      const reads = await SnapshotReads.open(this.calls, snapshot, isDirect(store) ? '' : await this.peers.hostOf(backup.nodeId), this.peers.logger, this.peers.count);
      try {
        const entries = snapshot.entries;
        for (const entry of entries) checkManifestPath(entry.path);
        let storedBytes = 0;
        const files = entries.filter((e) => e.type === 'FILE');
        // One entry per known content: files with the same bytes are one blob, and two puts of it at once would race.
        const byContent = new Map(files.filter((e) => e.sha256).map((e) => [e.sha256, e]));
        const send = isDirect(store)
          ? (entry: ManifestEntry) => uploadDirect(this.calls, snapshot, entry, store)
          : (entry: ManifestEntry) => reads.put(entry, (content) => store.putBlob(entry.sha256, content));
        const lookup = (await store.blobLookup?.([...byContent.keys()])) ?? store;
        const stores = [
          ...[...byContent.values()].map((entry) => async () => {
            if (await lookup.hasBlob(entry.sha256)) return 0;
            return send(entry);
          }),
          ...(putUnnamed ? files.filter((e) => !e.sha256).map((entry) => storeUnnamed(putUnnamed, reads, entry)) : []),
        ];
        await pMap(stores, async (put) => {
          // Awaited before it is added: `x += await` would add to the value read before the wait, losing the others'.
          const stored = await put();
          storedBytes += stored;
        }, { concurrency: isDirect(store) ? blobsInFlight.byAgent : blobsInFlight.throughController, stopOnError: true });
        await store.putManifest({ formatVersion: 1, backupId: backup._id, createdAt: backup.startedAt, entries });
        await reads.tellHashes(files);
        return { sizeBytes: totalBytes(entries), storedBytes, fileCount: entries.filter((e) => e.type === 'FILE').length };
      } finally {
        reads.close();
        await snapshot.close();
      }
    }));
  }

  /** Removes backups' manifests, then every blob no remaining manifest of their areas references. */
  async prune(destination: BackupDestinationDoc, backups: BackupDoc[]): Promise<void> {
    const areas = new Map<string | undefined, string[]>();
    for (const b of backups) areas.set(areaTeamOf(b), [...(areas.get(areaTeamOf(b)) ?? []), b._id]);
    for (const [teamId, ids] of areas) {
      const store = this.stores.storeOf(destination, teamId);
      for (const id of ids) await store.deleteManifest(id);
      await this.collectArea(destination, teamId);
    }
  }

  /**
   * Collects the garbage of every area of the destination (the root and each team's with backups
   * there). `partialsIdleMs` is 0 only at start, when nothing can be writing yet.
   */
  async collect(destination: BackupDestinationDoc, partialsIdleMs?: number): Promise<number> {
    let removed = await this.collectArea(destination, undefined, partialsIdleMs);
    for (const teamId of await this.records.teamsIn(destination._id)) removed += await this.collectArea(destination, teamId, partialsIdleMs);
    return removed;
  }

  /**
   * Collects one area with the destination held alone. A FAILED backup is never restored, so a
   * manifest it wrote before failing (the Controller killed just after) keeps no blob alive.
   */
  private collectArea(destination: BackupDestinationDoc, teamId: string | undefined, partialsIdleMs?: number): Promise<number> {
    const store = this.stores.storeOf(destination, teamId);
    const isDiscarded = async (backupId: string) => (await this.records.stateOf(backupId)) === 'FAILED';
    return this.locks.exclusive(destination._id, async () => (await this.claims.collecting(destination._id, () => collectGarbage(store, { partialsIdleMs, isDiscarded }))) ?? 0);
  }
}
