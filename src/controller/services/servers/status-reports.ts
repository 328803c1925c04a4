import type { Phase } from '../../domain/server-spec.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { worthWriting } from './observed-memo.js';
import type { ServerPortMoves } from './port-moves.js';
import type { SleepAudit } from './sleep-audit.js';
import { observedOf, type ServerReport } from '../../domain/server-report.js';
import type { ServerAggregate } from './aggregate.js';
import type { ServerEvent } from '../../actors/server-machine.js';
import type { ServerDoc } from '../../store/records.js';

/**
 * What happens when a server's status report arrives: the only writer of a server's observed
 * status. Reports also drive the workflows that wait on the Node: PROVISIONING ends when the
 * software is installed, DELETING when the Node has removed the server, and a failed install
 * that turns out installed after all is READY again.
 */
export class ServerReports {
  constructor(private readonly deps: ServiceDeps, private readonly servers: ServerAggregate, private readonly portMoves: ServerPortMoves, private readonly sleeps: SleepAudit) {}

  /** A report as the link publishes it: applied in the background, a failure logged. */
  heard = (nodeId: string, report: ServerReport): void => {
    this.apply(nodeId, report).catch((err: unknown) => this.deps.logger.error({ err, nodeId, serverId: report.serverId }, 'a server report could not be applied'));
  };

  /**
   * Queues the report in the server's turn at once (before any await), so reports keep their
   * arrival order and never interleave with a command's read and write; a held game port is
   * moved off once the report is applied.
   */
  async apply(nodeId: string, report: ServerReport): Promise<void> {
    this.servers.crashes.report(nodeId, report.serverId, report.lastCrash, report.removed);
    await this.servers.locked(report.serverId, () => this.settle(nodeId, report));
    await this.portMoves.reported(nodeId, report);
  }

  /**
   * Settled unread when what is known of the record says the report changes nothing (most
   * reports: an Agent reports every server at each connect and each step of its work), else
   * decided on the record as it is now. Only the server's own Node is heeded.
   */
  private async settle(nodeId: string, report: ServerReport): Promise<void> {
    const known = this.servers.known(report.serverId);
    // One in a phase a report can end is always decided on the record.
    if (known && (known.nodeId !== nodeId || (!endedByReports.has(known.phase) && !worthWriting(known.observed, observedOf(report, nowIso(this.deps)))))) return;
    // A record another Controller wrote between the read and the write (a request it served) is read and decided again.
    for (let attempt = 1; attempt <= rereadAttempts; attempt++) {
      const current = await this.servers.read(report.serverId);
      if (!current || current.nodeId !== nodeId) return;
      const at = nowIso(this.deps);
      const observed = observedOf(report, at);
      const event = eventOf(report, current, at);
      let written: boolean;
      if (event) written = await this.servers.take(current, event, observed);
      else if (worthWriting(current.observed, observed)) written = await this.servers.writeObserved(current, observed);
      else return;
      if (!written) continue;
      await this.sleeps.reported(current._id, nodeId, current.observed, observed);
      return;
    }
    this.deps.logger.warn({ nodeId, serverId: report.serverId }, 'a server report was not written: its record kept changing through other Controllers; the next report writes it');
  }
}

/** The event a report brings the server's machine, if any: the end of the phase it waited on the Node in. */
function eventOf(report: ServerReport, doc: ServerDoc, at: string): ServerEvent | undefined {
  if (report.removed && doc.phase === 'DELETING') return { type: 'REMOVED', at };
  if (report.installError && doc.phase === 'PROVISIONING') return { type: 'INSTALL_FAILED', at, message: report.installError };
  if (report.installed && (doc.phase === 'PROVISIONING' || (doc.phase === 'FAILED' && doc.failureReason === 'INSTALL_FAILED'))) return { type: 'INSTALLED', at };
  return undefined;
}

/** How often a report is decided again on a record other Controllers keep writing. */
const rereadAttempts = 3;

/** The phases a report can end (installed, removed, install failed; a failed install installed after all). */
const endedByReports = new Set<Phase>(['PROVISIONING', 'DELETING', 'FAILED']);
