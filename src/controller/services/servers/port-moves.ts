import { formatGamePorts } from '../../../shared/game-ports.js';
import { DomainError } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { ServerReport } from '../../domain/server-report.js';
import type { ServerAggregate } from './aggregate.js';
import type { PlacementTurn } from './placement-turn.js';

/**
 * Moves a server off a game port another program holds on its host. The Agent refuses to start
 * a game on a held port and says which (PORT_IN_USE); the port is then avoided on that Node for a
 * while, and the server goes to the lowest free port of the Node's range, as a placement change
 * does: a new generation, an audit event, the desired state to the Agent. With no port left the
 * server stays where it is and its condition says so; nothing loops.
 */
export class ServerPortMoves {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly servers: ServerAggregate,
    private readonly placing: PlacementTurn,
    private readonly audit: AuditService,
  ) {}

  /** A report from `nodeId` (applied already): a held port is moved off; any other settles what was noted. */
  async reported(nodeId: string, report: ServerReport): Promise<void> {
    const refusals = this.servers.portRefusals;
    if (!report.portInUse) {
      if (refusals.noneLeftOf(report.serverId, nodeId)) refusals.settled(report.serverId);
      return;
    }
    refusals.refused(nodeId, report.portInUse);
    await this.moveOff(nodeId, report.serverId, report.portInUse);
  }

  private async moveOff(nodeId: string, serverId: string, heldPort: number): Promise<void> {
    await this.placing.run(async (room) => {
      const doc = await this.deps.repos.servers.findById(serverId);
      // Moved already, elsewhere, or not meant to run: this report is about a port the server no longer wants.
      if (!doc || doc.nodeId !== nodeId || doc.gamePort !== heldPort || doc.desired.state !== 'RUNNING') return;
      // The proxy's port is the network's: it is never moved behind the operators' back.
      if (doc.kind === 'PROXY') return;
      const { port, range } = await room.freePort(nodeId, serverId);
      if (port === undefined) {
        this.servers.portRefusals.keep(nodeId);
        if (this.servers.portRefusals.noneLeft(serverId, nodeId, range)) {
          this.deps.logger.warn({ serverId, nodeId, port: heldPort, range: formatGamePorts(range) }, 'the game port is held by another program and no free port is left in the Node\'s range');
          this.servers.changed(doc);
        }
        return;
      }
      try {
        await this.servers.apply(doc, { type: 'UPDATE', at: nowIso(this.deps) }, undefined, { gamePort: port });
      } catch (e) {
        // A busy server (a workflow runs) is moved at its Agent's next report, once it is READY again.
        if (e instanceof DomainError && e.code === 'phase_busy') return;
        throw e;
      }
      this.servers.portRefusals.settled(serverId);
      await this.audit.recordSystem({
        actorKind: 'SYSTEM', action: 'server.port.move', targetKind: 'server', targetId: serverId, outcome: 'SUCCESS',
        details: { nodeId, fromPort: heldPort, toPort: port, reason: 'PORT_IN_USE' },
      });
      this.deps.logger.info({ serverId, nodeId, fromPort: heldPort, toPort: port }, 'moved the server off a game port another program holds');
    });
  }
}
