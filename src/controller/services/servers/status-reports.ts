import type { Phase } from '../../domain/server-spec.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { worthWriting } from './observed-memo.js';
import type { ServerPortMoves } from './port-moves.js';
import { observedOf, type ServerReport } from '../../domain/server-report.js';
import type { ServerService } from './servers.js';

/**
 * Applies Agent reports: the only writer of a server's observed status. Reports also drive the
 * workflows that wait on the Node: PROVISIONING ends when the software is installed, DELETING
 * when the Node has removed the server.
 */
export class ServerReports {
  constructor(private readonly deps: ServiceDeps, private readonly servers: ServerService, private readonly portMoves: ServerPortMoves) {}

  /** A report as the link publishes it: applied in the background, a failure logged. */
  heard = (nodeId: string, report: ServerReport): void => {
    this.apply(nodeId, report).catch((err: unknown) => this.deps.logger.error({ err, nodeId, serverId: report.serverId }, 'a server report could not be applied'));
  };

  /**
   * Queues the report on the server's lock at once (before any await), so reports keep their
   * arrival order; a held game port is moved off once the report is applied.
   */
  async apply(nodeId: string, report: ServerReport): Promise<void> {
    this.servers.crashes.report(nodeId, report.serverId, report.lastCrash, report.removed);
    await this.observe(nodeId, report);
    await this.portMoves.reported(nodeId, report);
  }

  private observe(nodeId: string, report: ServerReport): Promise<void> {
    return this.servers.observe(report.serverId, {
      // A report from another Node is never applied; one in a phase a report can end is always decided on the record.
      unchanged: (known) => known.nodeId !== nodeId || (!endedByReports.has(known.phase) && !worthWriting(known.observed, observedOf(report, nowIso(this.deps)))),
      decide: (doc) => {
        if (doc.nodeId !== nodeId) return undefined;
        const at = nowIso(this.deps);
        const observed = observedOf(report, at);
        const event =
          report.removed && doc.phase === 'DELETING' ? ({ type: 'REMOVED', at } as const)
            : report.installError && doc.phase === 'PROVISIONING' ? ({ type: 'INSTALL_FAILED', at, message: report.installError } as const)
              : report.installed && (doc.phase === 'PROVISIONING' || (doc.phase === 'FAILED' && doc.failureReason === 'INSTALL_FAILED')) ? ({ type: 'INSTALLED', at } as const)
                : undefined;
        if (event) return { event, observed };
        return worthWriting(doc.observed, observed) ? { observed } : undefined;
      },
    });
  }
}

/** The phases a report can end (installed, removed, install failed; a failed install installed after all). */
const endedByReports = new Set<Phase>(['PROVISIONING', 'DELETING', 'FAILED']);
