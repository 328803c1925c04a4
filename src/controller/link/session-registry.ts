import type { DesiredServer, RequestBody, Response } from '../../shared/link/messages.js';
import { AgentEvents } from './agent-events.js';
import { NodeUnavailableError } from './errors.js';
import type { NodeSession, RequestOptions } from './node-session.js';
import { status as GrpcStatus } from '@grpc/grpc-js';

/** Default wait for an Agent's answer before `node_unavailable`. */
export const defaultRequestTimeoutMs = 10_000;

/**
 * The Controller side's one handle on connected Agents, used by services: at most one session
 * per Node, and what goes out to it (desired state, requests with deadlines); what comes in is
 * published (AgentEvents). It holds no gRPC server, so services can use it before the link listens.
 */
export class AgentSessions extends AgentEvents {
  private readonly sessions = new Map<string, NodeSession>();

  /** Makes `session` the Node's one session; the one it replaces is closed (ABORTED) and returned. */
  attach(session: NodeSession): NodeSession | undefined {
    const previous = this.sessions.get(session.nodeId);
    this.sessions.set(session.nodeId, session);
    if (previous && previous !== session) {
      previous.close({ code: GrpcStatus.ABORTED, details: 'replaced by a newer connection of the same Node' });
      this.emitSessionEnd(session.nodeId);
      return previous;
    }
    return undefined;
  }

  /** Forgets a closed session; true when it was still the Node's current one (the Node is now disconnected). */
  detach(session: NodeSession): boolean {
    if (this.sessions.get(session.nodeId) !== session) return false;
    this.sessions.delete(session.nodeId);
    this.emitSessionEnd(session.nodeId);
    return true;
  }

  get(nodeId: string): NodeSession | undefined {
    return this.sessions.get(nodeId);
  }

  isConnected(nodeId: string): boolean {
    return this.sessions.has(nodeId);
  }

  /** The Nodes connected here now. */
  connectedNodeIds(): string[] {
    return [...this.sessions.keys()];
  }

  get connectedCount(): number {
    return this.sessions.size;
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

  /** Closes the Node's stream (revocation, deletion, its lease lost); the Agent sees `code` (and `trailers`). */
  disconnect(nodeId: string, code: GrpcStatus, details: string, trailers?: Record<string, string>): void {
    const session = this.sessions.get(nodeId);
    if (!session) return;
    this.sessions.delete(nodeId);
    session.close({ code, details }, trailers);
    this.emitSessionEnd(nodeId);
  }

  closeAll(): void {
    for (const session of this.sessions.values()) session.close({ code: GrpcStatus.UNAVAILABLE, details: 'the Controller is shutting down' });
    const nodeIds = [...this.sessions.keys()];
    this.sessions.clear();
    nodeIds.forEach((nodeId) => this.emitSessionEnd(nodeId));
  }
}
