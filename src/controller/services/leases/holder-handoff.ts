import type { Logger } from '../../../shared/logger.js';
import type { HolderRoutes, PeerHttp } from '../../link/peer-http.js';
import type { InternalPurpose } from '../../security/internal-token.js';

/** How long a handoff may take: the holder only reads a record and starts the work. */
const handoffMs = 5_000;

/** Work handed to the Controller that drives a Node: where it is asked, and what it is in the logs. */
export interface HandedWork {
  path: string;
  purpose: InternalPurpose;
  body: object;
  /** `workflow`, `backup`: in the warning when the holder does not take it. */
  what: string;
}

/**
 * Hands work that asks a Node's Agent (a workflow, a backup) to the Controller driving that Node,
 * which runs it as if asked there and settles what it leaves if it dies. Answers false when the
 * work stays here: this Controller drives the Node, nobody does, or the holder cannot be reached
 * within 5 s or no longer drives it (409); the work then runs here and fails as it would have.
 */
export class HolderHandoff {
  constructor(
    private readonly routes: HolderRoutes,
    private readonly peers: PeerHttp,
    private readonly logger: Logger,
    private readonly drivesNode: (nodeId: string) => boolean,
  ) {}

  drives(nodeId: string): boolean {
    return this.drivesNode(nodeId);
  }

  /** Whether the holder of `nodeId` took the work. */
  async handOff(nodeId: string | undefined, work: HandedWork): Promise<boolean> {
    if (!nodeId || this.drives(nodeId)) return false;
    const holder = await this.routes.holderOf(nodeId);
    if (!holder) return false;
    const context = { ...work.body, nodeId, holder: holder.id };
    try {
      const answer = await this.peers.post(holder, work.path, work.purpose, work.body, AbortSignal.timeout(handoffMs));
      answer.resume();
      if (answer.statusCode === 202) return true;
      this.routes.forget(nodeId);
      this.logger.warn({ ...context, status: answer.statusCode }, `the holder of the Node did not take the ${work.what}; it runs here`);
    } catch (err) {
      this.routes.forget(nodeId);
      this.logger.warn({ ...context, err }, `could not hand the ${work.what} to the holder of the Node; it runs here`);
    }
    return false;
  }
}
