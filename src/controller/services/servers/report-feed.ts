import type { ServerReport } from '../../domain/server-report.js';
import { Listeners } from '../../../shared/listeners.js';

export type ReportListener = (nodeId: string, report: ServerReport) => void;

/**
 * Every server report as it arrives, from whichever Node sent it. The records take reports only
 * from a server's own Node; workflows also hear the others (a migration's source removing the
 * copy it left behind).
 */
export class ServerReportFeed {
  private readonly listeners = new Listeners<Parameters<ReportListener>>();

  publish(nodeId: string, report: ServerReport): void {
    this.listeners.emit(nodeId, report);
  }

  subscribe(listener: ReportListener): () => void {
    return this.listeners.add(listener);
  }
}
