import type { Logger } from '../../../shared/logger.js';
import { defaultGamePorts } from '../../../shared/game-ports.js';
import type { NodeInfo } from '../../core/node-directory.js';
import type { NodeOwnership } from '../../core/node-ownership.js';
import type { NodeDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';

/** How often the Nodes other Controllers drive are read again for the views' connection states. */
export const storedNodesRefreshMs = 1_000;

/** A Node another Controller drives, as its holder last wrote it. */
interface StoredNode {
  info: NodeInfo;
  connected: boolean;
}

const connectedStates = new Set(['HEALTHY', 'DEGRADED']);

/**
 * The Nodes another Controller drives, as their holders wrote them to the store (connection
 * state, allocatable, ports, runtimes; only the holder writes a Node's status, fenced by its term).
 * A status is believed only while its writer's lease is live: a holder that died wrote no
 * UNREACHABLE, and its lease expiring is what says the Node is not heard any more. Placement reads
 * them fresh; the views' synchronous `connected` reads what the last refresh found (at most
 * `storedNodesRefreshMs` old). On the embedded store every Node is driven here and nothing is read.
 */
export class StoredNodes {
  private known = new Map<string, StoredNode>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly repos: Repositories,
    private readonly ownership: Pick<NodeOwnership, 'holders'>,
    private readonly logger: Logger,
    private readonly refreshMs = storedNodesRefreshMs,
  ) {}

  start(): void {
    if (this.repos.kind === 'embedded') return;
    const run = () => {
      this.refresh()
        .catch((err: unknown) => this.logger.warn({ err }, 'reading the Nodes other Controllers drive failed; retrying'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(run, this.refreshMs);
        });
    };
    run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Whether the Node's holder last said its Agent is heard (and still holds its lease), as of the last refresh. */
  connected(nodeId: string): boolean {
    return this.known.get(nodeId)?.connected ?? false;
  }

  /** Every enrolled Node as the store has it, read now (those driven here too: see `get`). */
  async list(): Promise<StoredNode[]> {
    await this.refresh();
    return [...this.known.values()];
  }

  /**
   * One Node as its holder last wrote it, read now; undefined when it is gone (or on the embedded
   * store). A Node driven here is answered too: its actor is the truth, but for the moment a lease
   * just gained has none yet (its record is being read again), the store's word stands in.
   */
  async get(nodeId: string): Promise<StoredNode | undefined> {
    if (this.repos.kind === 'embedded') return undefined;
    const doc = await this.repos.nodes.findById(nodeId);
    if (!doc) return undefined;
    return this.storedOf(doc, (await this.ownership.holders([nodeId])).has(nodeId));
  }

  private async refresh(): Promise<void> {
    if (this.repos.kind === 'embedded') return;
    const docs = await this.repos.nodes.find({ enrolledAt: { $exists: true } });
    const held = await this.ownership.holders(docs.map((d) => d._id));
    this.known = new Map(docs.map((d) => [d._id, this.storedOf(d, held.has(d._id))]));
  }

  private storedOf(doc: NodeDoc, leaseLive: boolean): StoredNode {
    const connected = leaseLive && connectedStates.has(doc.status.connectionState);
    return {
      connected,
      info: {
        nodeId: doc._id,
        acceptsPlacements: leaseLive && doc.adminState === 'ENABLED' && doc.status.connectionState === 'HEALTHY',
        allocatable: { cpuMillis: doc.status.allocatable.cpuMillis, memoryBytes: doc.status.allocatable.memoryBytes },
        hostname: doc.status.hostname,
        gamePorts: doc.status.gamePorts ?? defaultGamePorts,
        javaMajors: (doc.status.runtimes ?? []).filter((r) => r.name === 'java').map((r) => r.major),
      },
    };
  }
}
