import type { BackupDestinationDoc, BackupDoc, ServerDoc } from '../../store/records.js';
import type { NodeCalls } from '../../link/node-calls.js';
import { backupDeadlines } from './backup-deadlines.js';
import { areaTeamOf, nodeAreaPath } from './backup-area.js';
import type { BackupKind, BackupOutcome } from './backup-runner.js';
import type { DestinationLocks } from './destination-locks.js';

/** A destination's store on one Node: backups into it share it, a prune needs it alone. */
const storeKey = (nodeId: string, destinationId: string) => `${nodeId}/${destinationId}`;

/** NODE_DIRECTORY: the server's Agent backs it up into the store under the destination's path on its Node. */
export class NodeDirectoryKind implements BackupKind {
  constructor(private readonly calls: NodeCalls, private readonly locks: DestinationLocks) {}

  async take(backup: BackupDoc, server: ServerDoc, destination: BackupDestinationDoc, quiesce: boolean): Promise<BackupOutcome> {
    const answer = await this.locks.shared(storeKey(backup.nodeId, destination._id), () => this.calls.askNode(backup.nodeId, {
      body: 'localBackup', localBackup: { serverId: server._id, backupId: backup._id, destinationPath: nodeAreaPath(destination.path ?? '', areaTeamOf(backup)), quiesce },
    }, { timeoutMs: backupDeadlines.localBackupMs }));
    if (answer.payload !== 'backupResult') throw new Error('the Agent answered the backup without its result');
    return { sizeBytes: Number(answer.backupResult.sizeBytes), storedBytes: Number(answer.backupResult.storedBytes), fileCount: answer.backupResult.fileCount };
  }

  /** Removes backups from the areas of the store on their Node, and the blobs nothing there references any more. */
  async prune(nodeId: string, destination: BackupDestinationDoc, backups: BackupDoc[]): Promise<void> {
    const areas = new Map<string, string[]>();
    for (const b of backups) {
      const path = nodeAreaPath(destination.path ?? '', areaTeamOf(b));
      areas.set(path, [...(areas.get(path) ?? []), b._id]);
    }
    for (const [destinationPath, backupIds] of areas) {
      await this.locks.exclusive(storeKey(nodeId, destination._id), () => this.calls.askNode(nodeId, {
        body: 'localBackupPrune', localBackupPrune: { destinationPath, backupIds },
      }, { timeoutMs: backupDeadlines.pruneMs }));
    }
  }
}
