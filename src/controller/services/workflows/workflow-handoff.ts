import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../../shared/logger.js';
import type { HolderRoutes, PeerHttp } from '../../link/peer-http.js';
import type { ServerDoc } from '../../store/records.js';

export const workflowRunPath = '/internal/v1/workflow-run';

/** What a Controller asks of the one driving a server's Node: run the workflow its record names. */
export interface HandedOffRun {
  serverId: string;
}

/** How long a handoff may take: the holder only reads the record and starts the run. */
const handoffMs = 5_000;
/** How often a Controller that handed a run off reads whether it has ended (a drain waits for each move). */
const endPollMs = 1_000;

/**
 * A workflow is its server's Node's holder's work: it asks that Node's Agent, and the holder
 * settles what a run left when it gains the Node. So a workflow begun through a Controller that
 * does not drive the Node is handed to the one that does, which runs it as if begun there; when
 * none takes it (nobody drives the Node, the holder cannot be reached or no longer holds it) it
 * runs where it was begun, and fails there as it would have (the Node is not connected).
 */
export class WorkflowHandoff {
  constructor(
    private readonly routes: HolderRoutes,
    private readonly peers: PeerHttp,
    private readonly read: (serverId: string) => Promise<ServerDoc | null>,
    private readonly logger: Logger,
    private readonly drivesNode: (nodeId: string) => boolean,
  ) {}

  drives(nodeId: string): boolean {
    return this.drivesNode(nodeId);
  }

  /** Whether the holder of the server's Node took its run. */
  async handOff(doc: ServerDoc): Promise<boolean> {
    if (!doc.nodeId || this.drives(doc.nodeId)) return false;
    const holder = await this.routes.holderOf(doc.nodeId);
    if (!holder) return false;
    const run: HandedOffRun = { serverId: doc._id };
    try {
      const answer = await this.peers.post(holder, workflowRunPath, 'workflow-run', run, AbortSignal.timeout(handoffMs));
      answer.resume();
      if (answer.statusCode === 202) return true;
      this.routes.forget(doc.nodeId);
      this.logger.warn({ serverId: doc._id, nodeId: doc.nodeId, holder: holder.id, status: answer.statusCode }, 'the holder of the Node did not take the workflow; it runs here');
    } catch (err) {
      this.routes.forget(doc.nodeId);
      this.logger.warn({ err, serverId: doc._id, nodeId: doc.nodeId, holder: holder.id }, 'could not hand the workflow to the holder of the Node; it runs here');
    }
    return false;
  }

  /** Settles once the record names no workflow begun at `startedAt` any more, or `signal` aborts. */
  async ended(serverId: string, startedAt: string | undefined, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const doc = await this.read(serverId).catch(() => 'unread' as const);
      if (doc !== 'unread' && doc?.workflow?.startedAt !== startedAt) return;
      await delay(endPollMs, undefined, { signal }).catch(() => undefined);
    }
  }
}
