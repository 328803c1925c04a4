import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import type { ServiceDeps } from '../deps.js';
import type { MigrationService } from '../migration/migrations.js';
import type { NodeService } from './nodes.js';

/**
 * POST /nodes/{id}/drain: the Node is disabled (so placement never picks it again) and every
 * server READY on it is migrated, one at a time, to the Node placement picks. A server that cannot
 * move (no room elsewhere, busy, rolled back) stays, and the drain goes on with the next.
 */
export class NodeDrain {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly nodes: NodeService,
    private readonly migrations: MigrationService,
  ) {}

  async drain(caller: Caller, nodeId: string, audit: AuditScope) {
    const node = await this.nodes.disable(caller, nodeId, audit);
    const servers = await this.deps.repos.servers.find({ nodeId, phase: 'READY' }, { sort: { _id: 1 } });
    const serverIds = servers.map((s) => s._id);
    audit.detail({ serverIds });
    void this.moveAll(nodeId, serverIds);
    return { node, serverIds };
  }

  private async moveAll(nodeId: string, serverIds: string[]): Promise<void> {
    for (const serverId of serverIds) {
      if (this.migrations.stopped) return;
      try {
        const doc = await this.deps.repos.servers.findById(serverId);
        if (doc?.nodeId !== nodeId) continue;
        const { done } = await this.migrations.begin(doc, undefined);
        await done;
      } catch (err) {
        this.deps.logger.warn({ err, serverId, nodeId }, 'the drain could not move a server; it stays on the Node');
      }
    }
  }
}
