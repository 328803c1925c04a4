import type { Clock } from '../../../shared/clock.js';
import { controllerResource } from '../../domain/lease-share.js';
import type { HolderRoutes, PeerController } from '../../link/peer-http.js';
import type { Repositories } from '../../store/repositories.js';
import type { ClusterMembership } from './membership.js';

/** How long a holder found is trusted before the store is asked again; an upload's chunks share one look-up. */
const rememberMs = 2_000;

/**
 * Where each Node's holder listens: the Node's lease names the Controller, that Controller's own
 * lease its HTTP address. A Node driven here, or by nobody, has no route (it is served here).
 */
export class StoredHolderRoutes implements HolderRoutes {
  private readonly known = new Map<string, { peer: PeerController; until: number }>();

  constructor(private readonly membership: ClusterMembership, private readonly repos: Repositories, private readonly clock: Clock) {}

  async holderOf(nodeId: string): Promise<PeerController | undefined> {
    if (this.membership.termFor(nodeId) !== undefined) return undefined;
    const now = this.clock.now().getTime();
    const known = this.known.get(nodeId);
    if (known && known.until > now) return known.peer;
    this.known.delete(nodeId);
    const holder = (await this.membership.holders([nodeId])).get(nodeId);
    if (!holder || holder === this.membership.controllerId) return undefined;
    const lease = await this.repos.leases.findById(controllerResource(holder));
    if (!lease?.httpAddress) return undefined;
    const peer = { id: holder, httpAddress: lease.httpAddress };
    this.known.set(nodeId, { peer, until: now + rememberMs });
    return peer;
  }

  forget(nodeId: string): void {
    this.known.delete(nodeId);
  }
}
