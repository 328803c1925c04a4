import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Logger } from '../../../shared/logger.js';
import type { FleetJob } from './fleet-jobs.js';
import type { ClusterMembership } from './membership.js';

/** What is settled for work a stopped or dead Controller left: backups cut off, workflows and drains under way. */
export interface LeftWork {
  backups: { recover(nodeId?: string): Promise<void> };
  workflows: { resume(nodeId?: string): Promise<void> };
}

/**
 * The work a Controller left behind belongs to whoever drives its Node next. On the embedded store
 * the one Controller settles all of it at start (the backups' start, then the workflows'). On MongoDB it is settled Node by
 * Node when this Controller gains a Node's lease (the Nodes it claims at start, and those it takes
 * over later), never for a Node another live Controller drives: that one's backups and workflows
 * are under way there. Backups: those cut off first, so a workflow cut off during its own
 * PRE_RESTORE or PRE_UPDATE backup finds that backup settled; then workflows, then drains.
 */
export class HolderWork {
  private readonly perNode = new KeyedMutex();

  constructor(private readonly left: LeftWork, private readonly logger: Logger) {}

  /** One Node's leftovers, after any settling of the same Node under way (a Node lost and gained again quickly). */
  settleNode(nodeId: string): Promise<void> {
    return this.perNode.run(nodeId, async () => {
      await this.left.backups.recover(nodeId);
      await this.left.workflows.resume(nodeId);
    });
  }

  /** On MongoDB: every Node lease gained settles that Node's leftovers, beside the lease round. */
  follow(membership: Pick<ClusterMembership, 'onChange'>): void {
    membership.onChange((change, nodeId) => {
      if (change !== 'gained') return;
      this.settleNode(nodeId).catch((err: unknown) => this.logger.error({ err, nodeId }, 'settling the backups and workflows a Node\'s former Controller left failed'));
    });
  }

  /**
   * Backups never placed on a Node (their server had none) have no Node lease: they are settled
   * by the holder of the backup schedules' job, before the job starts.
   */
  withUnplaced(job: FleetJob): FleetJob {
    return {
      start: async () => {
        await this.left.backups.recover('');
        await job.start();
      },
      stop: () => job.stop(),
    };
  }
}
