import type { ConsoleEnd, ConsoleLine } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import type { ServerReport } from '../domain/server-report.js';

/**
 * A server's status as an Agent reported it, from whichever Node sent it: the records take reports
 * only from a server's own Node, workflows also hear the others (a migration's source removing the
 * copy it left behind).
 */
type ServerReportListener = (nodeId: string, report: ServerReport) => void;
type ConsoleLineListener = (nodeId: string, line: ConsoleLine) => void;
type ConsoleEndListener = (nodeId: string, end: ConsoleEnd) => void;
/** Hears a Node's session go (closed, replaced or cut off): whatever it relayed has stopped. */
type SessionEndListener = (nodeId: string) => void;
/**
 * Loads and sends the Node's full desired state (on every (re)connect, and when its Agent saw a gap
 * in revisions); a rejection closes the Node's stream, so its Agent reconnects and asks again.
 */
type FullStateListener = (nodeId: string) => Promise<void>;

/** What services subscribe to of what the Agents send. */
export type AgentInbound = Pick<AgentEvents, 'onServerReport' | 'onConsoleLine' | 'onConsoleEnd' | 'onSessionEnd' | 'onFullStateWanted'>;

/**
 * What the link hears from Agents, published to the services that subscribe once they exist; the
 * link listens only after they are built, so none of it is missed. A listener that throws is
 * logged and the others still hear.
 */
export class AgentEvents {
  private readonly reportListeners = new Set<ServerReportListener>();
  private readonly consoleListeners = new Set<ConsoleLineListener>();
  private readonly consoleEndListeners = new Set<ConsoleEndListener>();
  private readonly sessionEndListeners = new Set<SessionEndListener>();
  private readonly fullStateListeners = new Set<FullStateListener>();

  constructor(private readonly logger: Logger) {}

  onServerReport(listener: ServerReportListener): () => void {
    return subscribe(this.reportListeners, listener);
  }

  onConsoleLine(listener: ConsoleLineListener): () => void {
    return subscribe(this.consoleListeners, listener);
  }

  onConsoleEnd(listener: ConsoleEndListener): () => void {
    return subscribe(this.consoleEndListeners, listener);
  }

  onSessionEnd(listener: SessionEndListener): () => void {
    return subscribe(this.sessionEndListeners, listener);
  }

  onFullStateWanted(listener: FullStateListener): () => void {
    return subscribe(this.fullStateListeners, listener);
  }

  emitServerReport(nodeId: string, report: ServerReport): void {
    for (const listener of this.reportListeners) this.guard(() => listener(nodeId, report), nodeId);
  }

  emitConsoleLine(nodeId: string, line: ConsoleLine): void {
    for (const listener of this.consoleListeners) this.guard(() => listener(nodeId, line), nodeId);
  }

  emitConsoleEnd(nodeId: string, end: ConsoleEnd): void {
    for (const listener of this.consoleEndListeners) this.guard(() => listener(nodeId, end), nodeId);
  }

  protected emitSessionEnd(nodeId: string): void {
    for (const listener of this.sessionEndListeners) this.guard(() => listener(nodeId), nodeId);
  }

  /** Settles when every listener has sent the Node its full state; rejects when one could not. */
  async wantFullState(nodeId: string): Promise<void> {
    await Promise.all([...this.fullStateListeners].map((listener) => listener(nodeId)));
  }

  private guard(fn: () => void, nodeId: string): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err, nodeId }, 'agent message listener failed');
    }
  }
}

function subscribe<L>(listeners: Set<L>, listener: L): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
