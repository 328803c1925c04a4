import type { ConsoleEnd, ConsoleLine, DesiredServer, RequestBody, Response, ServerStatus } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { NodeUnavailableError } from './errors.js';
import type { NodeSession, RequestOptions } from './node-session.js';
import { status as GrpcStatus } from '@grpc/grpc-js';

/** What the servers give the link: desired state goes out to Agents, their server reports come in. */
export interface ServerLinkHooks {
  /** The full desired state of a Node's servers. */
  desiredStateFor(nodeId: string): Promise<DesiredServer[]>;
  /** Loads and sends the Node's full desired state (on every (re)connect and when the Agent asks); rejects when it cannot be loaded. */
  sendFullState(nodeId: string): Promise<void>;
  /** One server's status as the Node's Agent reported it. */
  serverStatus(nodeId: string, status: ServerStatus): void;
}
export type ConsoleLineListener = (nodeId: string, line: ConsoleLine) => void;
export type ConsoleEndListener = (nodeId: string, end: ConsoleEnd) => void;
/** Hears a Node's session go (closed, replaced or cut off): whatever it relayed has stopped. */
export type SessionEndListener = (nodeId: string) => void;

/** Default wait for an Agent's answer before `node_unavailable`. */
export const defaultRequestTimeoutMs = 10_000;

/**
 * The Controller side's one handle on connected Agents, used by services: at most one session
 * per Node, desired state out, requests with deadlines, and server status and console lines in.
 * It holds no gRPC server, so services can use it before the link listens.
 */
export class AgentSessions {
  private readonly sessions = new Map<string, NodeSession>();
  private readonly consoleListeners = new Set<ConsoleLineListener>();
  private readonly consoleEndListeners = new Set<ConsoleEndListener>();
  private readonly sessionEndListeners = new Set<SessionEndListener>();

  constructor(private readonly logger: Logger, private readonly servers: ServerLinkHooks) {}

  /** Makes `session` the Node's one session; the one it replaces is closed (ABORTED) and returned. */
  attach(session: NodeSession): NodeSession | undefined {
    const previous = this.sessions.get(session.nodeId);
    this.sessions.set(session.nodeId, session);
    if (previous && previous !== session) {
      previous.close({ code: GrpcStatus.ABORTED, details: 'replaced by a newer connection of the same Node' });
      this.sessionEnded(session.nodeId);
      return previous;
    }
    return undefined;
  }

  /** Forgets a closed session; true when it was still the Node's current one (the Node is now disconnected). */
  detach(session: NodeSession): boolean {
    if (this.sessions.get(session.nodeId) !== session) return false;
    this.sessions.delete(session.nodeId);
    this.sessionEnded(session.nodeId);
    return true;
  }

  get(nodeId: string): NodeSession | undefined {
    return this.sessions.get(nodeId);
  }

  isConnected(nodeId: string): boolean {
    return this.sessions.has(nodeId);
  }

  get connectedCount(): number {
    return this.sessions.size;
  }

  desiredStateFor(nodeId: string): Promise<DesiredServer[]> {
    return this.servers.desiredStateFor(nodeId);
  }

  /** Loads and sends the Node's full desired state, in order with the changes sent to it. */
  sendFullState(nodeId: string): Promise<void> {
    return this.servers.sendFullState(nodeId);
  }

  /** Sends the Node's full desired state now; false when the Node is not connected (it gets it on connect). */
  sendDesiredState(nodeId: string, servers: DesiredServer[]): boolean {
    return this.sessions.get(nodeId)?.sendDesiredState(servers) ?? false;
  }

  /** Whether the Node's Agent takes one server's change at a time (else it gets the full state). */
  acceptsChanges(nodeId: string): boolean {
    return this.sessions.get(nodeId)?.acceptsChanges ?? false;
  }

  /** Sends one server's desired state (null: removed); false when not connected or not yet sent the full state. */
  sendDesiredChange(nodeId: string, serverId: string, server: DesiredServer | null): boolean {
    return this.sessions.get(nodeId)?.sendDesiredChange(serverId, server) ?? false;
  }

  /** Asks the Node's Agent; rejects with NodeUnavailableError (not connected, closed, deadline) or AgentRequestError. */
  request(nodeId: string, body: RequestBody, options: Partial<RequestOptions> = {}): Promise<Response> {
    const session = this.sessions.get(nodeId);
    if (!session) return Promise.reject(new NodeUnavailableError(nodeId, 'not_connected'));
    return session.request(body, { timeoutMs: defaultRequestTimeoutMs, ...options });
  }

  /** Closes the Node's stream (revocation, deletion); the Agent sees `code`. */
  disconnect(nodeId: string, code: GrpcStatus, details: string): void {
    const session = this.sessions.get(nodeId);
    if (!session) return;
    this.sessions.delete(nodeId);
    session.close({ code, details });
    this.sessionEnded(nodeId);
  }

  onConsoleLine(listener: ConsoleLineListener): () => void {
    this.consoleListeners.add(listener);
    return () => this.consoleListeners.delete(listener);
  }

  onConsoleEnd(listener: ConsoleEndListener): () => void {
    this.consoleEndListeners.add(listener);
    return () => this.consoleEndListeners.delete(listener);
  }

  onSessionEnd(listener: SessionEndListener): () => void {
    this.sessionEndListeners.add(listener);
    return () => this.sessionEndListeners.delete(listener);
  }

  emitConsoleEnd(nodeId: string, end: ConsoleEnd): void {
    for (const listener of this.consoleEndListeners) this.guard(() => listener(nodeId, end), nodeId);
  }

  private sessionEnded(nodeId: string): void {
    for (const listener of this.sessionEndListeners) this.guard(() => listener(nodeId), nodeId);
  }

  emitServerStatus(nodeId: string, status: ServerStatus): void {
    this.guard(() => this.servers.serverStatus(nodeId, status), nodeId);
  }

  emitConsoleLine(nodeId: string, line: ConsoleLine): void {
    for (const listener of this.consoleListeners) this.guard(() => listener(nodeId, line), nodeId);
  }

  closeAll(): void {
    for (const session of this.sessions.values()) session.close({ code: GrpcStatus.UNAVAILABLE, details: 'the Controller is shutting down' });
    const nodeIds = [...this.sessions.keys()];
    this.sessions.clear();
    nodeIds.forEach((nodeId) => this.sessionEnded(nodeId));
  }

  private guard(fn: () => void, nodeId: string): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err, nodeId }, 'agent message listener failed');
    }
  }
}
