import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Logger } from '../../../shared/logger.js';
import type { NodeState } from '../../actors/fleet.js';
import type { Repositories } from '../../store/repositories.js';
import { fenced } from '../../store/lease-store.js';

/** The lease term to write a Node's status under: undefined skips the write (another Controller drives it), 0 writes unfenced. */
export type StatusFence = (nodeId: string) => number | undefined;

/**
 * Persists what the Node actors observed: connection state, conditions and the Agent's facts.
 * adminState is not written here; the Node service writes it before it answers. Writes for one
 * Node run one at a time, so they land in the order the changes happened. With several
 * Controllers only the Node's lease holder writes, fenced by its term: a deposed holder's late
 * write changes nothing once the new holder has written.
 */
export class NodeStatusWriter {
  private readonly locks = new KeyedMutex();

  constructor(private readonly repos: Repositories, private readonly logger: Logger, private readonly fence: StatusFence = () => 0) {}

  /** Queues the write of a changed state; a failure is logged, the next change writes again. */
  write(state: NodeState): void {
    void this.locks.run(state.nodeId, () => this.save(state));
  }

  /** Writes each Node's last state (usage and heartbeat time) after what is queued: at shutdown. */
  async flush(states: NodeState[]): Promise<void> {
    await Promise.all(states.map((state) => this.locks.run(state.nodeId, () => this.save(state))));
  }

  private async save(state: NodeState): Promise<void> {
    const term = this.fence(state.nodeId);
    if (term === undefined) return;
    try {
      const set = { status: state.status, conditions: state.conditions };
      if (term === 0) await this.repos.nodes.update({ _id: state.nodeId }, set);
      else {
        const fence = fenced(term);
        const written = await this.repos.nodes.update({ _id: state.nodeId, ...fence.filter }, { ...set, ...fence.set });
        // The record was there but a newer term wrote it: this Controller drives the Node no longer, and its write changed nothing.
        if (written === 0 && (await this.repos.nodes.findById(state.nodeId)) !== null) {
          this.logger.warn({ event: 'fenced_write_refused', nodeId: state.nodeId, term }, 'a Node status write of an older lease term was refused by the store');
        }
      }
    } catch (err) {
      this.logger.error({ err, nodeId: state.nodeId }, 'writing node status failed');
    }
  }
}
