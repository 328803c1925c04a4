import type { AuditScope } from '../http/audit-scope.js';
import type { Caller } from '../http/caller.js';
import { notFound } from '../http/problem.js';
import type { NetworkDoc } from '../store/records.js';
import type { Access } from './access.js';
import { nowIso, type ServiceDeps } from './deps.js';

const networkView = ({ _id, ...rest }: NetworkDoc) => rest;

/** The one network created at setup: where players connect. */
export class NetworkService {
  constructor(private readonly deps: ServiceDeps, private readonly access: Access) {}

  async get() {
    const network = await this.deps.repos.network.findById('network');
    if (!network) throw notFound('network');
    return networkView(network);
  }

  async update(caller: Caller, input: { name?: string; description?: string; address?: string; port?: number }, audit: AuditScope) {
    audit.target('network').detail({ ...input });
    this.access.requireGlobalAdmin(caller);
    const network = await this.deps.repos.network.findById('network');
    if (!network) throw notFound('network');
    const updated: NetworkDoc = { ...network, ...input, updatedAt: nowIso(this.deps) };
    await this.deps.repos.network.replace({ _id: 'network' }, updated);
    return networkView(updated);
  }
}
