import type { DesiredServer, ServerStatus } from '../../../shared/link/messages.js';
import type { Logger } from '../../../shared/logger.js';
import type { ServerLinkHooks } from '../../link/session-registry.js';
import type { ServerReportFeed } from '../servers/report-feed.js';
import type { ServerReports } from '../servers/status-reports.js';
import type { FleetNodeGateway } from './desired-sender.js';
import { fromLinkStatus } from './wire.js';

/** The services the link's messages go to; they are built after the Agent sessions they use. */
export interface InboundTargets {
  gateway: Pick<FleetNodeGateway, 'desiredFor' | 'sendFull'>;
  reportFeed: ServerReportFeed;
  serverReports: ServerReports;
}

/**
 * What happens when an Agent reports: each kind of message the link hands the services, and the
 * service call it becomes. Heartbeats and console lines go from the link to the Node actors and
 * the console hub directly; everything about a server's desired and observed state passes here.
 */
export class AgentInbound implements ServerLinkHooks {
  private targets?: InboundTargets;

  constructor(private readonly logger: Logger) {}

  /** Called once, when the services exist; no Agent can connect before (the link listens later). */
  bind(targets: InboundTargets): void {
    this.targets = targets;
  }

  /** The Node's full desired state, as its Welcome carries it. */
  desiredStateFor(nodeId: string): Promise<DesiredServer[]> {
    return this.bound().gateway.desiredFor(nodeId);
  }

  /** The Agent (re)connected or asked for its full state after a gap in revisions. */
  sendFullState(nodeId: string): Promise<void> {
    return this.bound().gateway.sendFull(nodeId);
  }

  /**
   * A server's status from an Agent: every listener hears it (workflows watch other Nodes too),
   * then the server's record takes it if the Node is the server's own.
   */
  serverStatus(nodeId: string, status: ServerStatus): void {
    const { reportFeed, serverReports } = this.bound();
    const report = fromLinkStatus(status);
    reportFeed.publish(nodeId, report);
    serverReports.apply(nodeId, report).catch((err: unknown) => this.logger.error({ err, nodeId, serverId: report.serverId }, 'a server report could not be applied'));
  }

  private bound(): InboundTargets {
    if (!this.targets) throw new Error('the link delivered a message before the services were built');
    return this.targets;
  }
}
