import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Logger } from '../../../shared/logger.js';
import type { NodeState } from '../../actors/fleet.js';
import type { Repositories } from '../../store/repositories.js';

/**
 * Persists what the Node actors observed: connection state, conditions and the Agent's facts.
 * adminState is not written here; the Node service writes it before it answers. Writes for one
 * Node run one at a time, so they land in the order the changes happened.
 */
export class NodeStatusWriter {
  private readonly locks = new KeyedMutex();

  constructor(private readonly repos: Repositories, private readonly logger: Logger) {}

  /** Queues the write of a changed state; a failure is logged, the next change writes again. */
  write(state: NodeState): void {
    void this.locks.run(state.nodeId, () => this.save(state));
  }

  /** Writes each Node's last state (usage and heartbeat time) after what is queued: at shutdown. */
  async flush(states: NodeState[]): Promise<void> {
    await Promise.all(states.map((state) => this.locks.run(state.nodeId, () => this.save(state))));
  }

  private async save(state: NodeState): Promise<void> {
    try {
      await this.repos.nodes.update({ _id: state.nodeId }, { status: state.status, conditions: state.conditions });
    } catch (err) {
      this.logger.error({ err, nodeId: state.nodeId }, 'writing node status failed');
    }
  }
}
