import type { ServerObserved } from '../../domain/server-spec.js';
import type { AuditService } from '../audit/audit.js';

/**
 * A server's sleeps and wakes, audited as its Agent reports them (the Agent decides both: it counts
 * the players and answers the port). Read off the difference between the stored status and the new
 * one, so a Controller restart or a repeated report audits nothing twice.
 */
export class SleepAudit {
  constructor(private readonly audit: Pick<AuditService, 'recordSystem'>) {}

  async reported(serverId: string, nodeId: string, before: ServerObserved, after: ServerObserved): Promise<void> {
    if (after.sleeping && !before.sleeping) {
      await this.audit.recordSystem({ actorKind: 'AGENT', action: 'server.slept', targetKind: 'server', targetId: serverId, outcome: 'SUCCESS', details: { nodeId, since: after.sleeping.since } });
    }
    if (after.lastWake && after.lastWake.at !== before.lastWake?.at) {
      const { at, player } = after.lastWake;
      await this.audit.recordSystem({ actorKind: 'AGENT', action: 'server.woke', targetKind: 'server', targetId: serverId, outcome: 'SUCCESS', details: { nodeId, at, ...(player ? { player } : {}) } });
    }
  }
}
