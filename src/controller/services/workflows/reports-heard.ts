import type { Logger } from '../../../shared/logger.js';
import type { ServerReport } from '../../domain/server-report.js';
import type { AgentInbound } from '../../link/agent-events.js';
import type { ServerDoc } from '../../store/records.js';

type ReportListener = Parameters<AgentInbound['onServerReport']>[0];

/**
 * The reports a workflow waits for, from wherever they are heard: the Agents connected here, and,
 * for a Node another Controller drives (a migration's target), the status that Controller wrote
 * to the server's record, read again when the change is heard through the server feed. A record
 * is read only while a workflow waits, and only for a server on a Node not driven here (whose
 * Agent's own report is heard here first).
 */
export class ReportsHeard implements Pick<AgentInbound, 'onServerReport'> {
  private readonly listeners = new Set<ReportListener>();

  constructor(
    private readonly local: Pick<AgentInbound, 'onServerReport'>,
    private readonly read: (serverId: string) => Promise<ServerDoc | null>,
    private readonly drives: (nodeId: string) => boolean,
    private readonly logger: Logger,
  ) {}

  onServerReport(listener: ReportListener): () => void {
    const unsubscribe = this.local.onServerReport(listener);
    this.listeners.add(listener);
    return () => {
      unsubscribe();
      this.listeners.delete(listener);
    };
  }

  /** Another Controller changed the server (heard through the store's feed). */
  async changedElsewhere(serverId: string): Promise<void> {
    if (this.listeners.size === 0) return;
    const doc = await this.read(serverId);
    if (!doc?.nodeId || this.drives(doc.nodeId)) return;
    const { reportedAt, ...observed } = doc.observed;
    const report: ServerReport = { serverId, ...observed, removed: false };
    for (const listener of [...this.listeners]) {
      try {
        listener(doc.nodeId, report);
      } catch (err) {
        this.logger.error({ err, serverId }, 'a workflow failed to take in a report read from the store');
      }
    }
  }
}
