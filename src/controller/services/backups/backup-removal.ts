import type { BackupDestinationDoc, BackupDoc } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';
import type { ControllerKind } from './controller-kind.js';
import { heldByController } from './destinations.js';
import type { NodeDirectoryKind } from './node-directory-kind.js';

/**
 * Deletes finished backups: their content from the destination first (manifest, then the blobs
 * nothing else references), the record last, so a failure leaves a record to delete again and
 * never content nobody can find. A NODE_DIRECTORY backup whose Node was deleted went with it.
 */
export class BackupRemoval {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly destinations: { get(id: string): Promise<BackupDestinationDoc | null> },
    private readonly nodeDirectory: NodeDirectoryKind,
    private readonly controller: ControllerKind,
  ) {}

  /** Backups of one destination (and, for NODE_DIRECTORY, of one Node), all at once. */
  async remove(backups: BackupDoc[]): Promise<void> {
    const groups = new Map<string, BackupDoc[]>();
    for (const b of backups) groups.set(`${b.destinationId} ${b.nodeId}`, [...(groups.get(`${b.destinationId} ${b.nodeId}`) ?? []), b]);
    for (const group of groups.values()) {
      const { destinationId, nodeId } = group[0];
      const ids = group.map((b) => b._id);
      const destination = await this.destinations.get(destinationId);
      if (destination && heldByController(destination)) await this.controller.prune(destination, group);
      else if (destination?.kind === 'NODE_DIRECTORY' && (await this.deps.repos.nodes.findById(nodeId))) await this.nodeDirectory.prune(nodeId, destination, group);
      await this.deps.repos.backups.delete({ _id: { $in: ids } });
    }
  }
}
