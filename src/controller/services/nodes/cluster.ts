import type { Caller } from '../../core/caller.js';
import type { Access } from '../identity/access.js';
import type { ClusterMembership } from '../leases/membership.js';

/** `GET /cluster`: the Controllers sharing the store, for global administrators. */
export class ClusterService {
  constructor(private readonly access: Access, private readonly membership: Pick<ClusterMembership, 'controllers'>) {}

  async get(caller: Caller) {
    this.access.requireGlobalAdmin(caller);
    return { controllers: await this.membership.controllers() };
  }
}
