import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import type { Clock } from '../../shared/clock.js';
import type { AgentLinkHandlers } from '../../shared/link/proto.js';
import type { ControllerMessage, DesiredServer, RequestBody, Response } from '../../shared/link/messages.js';
import { AgentRequestError, NodeUnavailableError } from './errors.js';
import { SessionKeepalive } from './session-keepalive.js';

export type AgentStream = Parameters<AgentLinkHandlers['Connect']>[0];

export interface RequestOptions {
  /** How long to wait for the (last) answer; the Agent is told the deadline too. */
  timeoutMs: number;
  /** Receives each part of a multi-part answer (`more: true`, e.g. file chunks) before the last one. */
  onPart?: (part: Response) => void;
}

interface Pending {
  resolve(response: Response): void;
  reject(error: Error): void;
  onPart?: (part: Response) => void;
  timer: NodeJS.Timeout;
}

/**
 * One Node's open stream: writes Controller messages, correlates requests and answers by id,
 * and fails every pending request at once when the stream closes or a deadline passes.
 */
export class NodeSession {
  private readonly pending = new Map<string, Pending>();
  private nextRequest = 0;
  private revision = 0;
  private closedFlag = false;
  private keepalive?: SessionKeepalive;
  /** Set by the hello: the Agent applies DesiredServerChange (an older one gets the full state each time). */
  acceptsChanges = false;
  /** The lease term this Controller drives the Node under (0 without leases); stamped on what the Agent must obey. */
  leaseTerm = 0;

  constructor(
    readonly id: string,
    readonly nodeId: string,
    readonly observedAddress: string,
    private readonly call: AgentStream,
    private readonly clock: Clock,
  ) {}

  get closed(): boolean {
    return this.closedFlag;
  }

  send(message: ControllerMessage): boolean {
    if (this.closedFlag) return false;
    this.call.write(message);
    this.keepalive?.sent();
    return true;
  }

  /** From now on, never silent for `silenceLimitMs` (the limit the Welcome tells the Agent; 0: no keepalive). */
  keepAlive(silenceLimitMs: number): void {
    if (silenceLimitMs <= 0 || this.closedFlag) return;
    this.keepalive?.stop();
    this.keepalive = new SessionKeepalive(Math.round(silenceLimitMs / 3), () => this.send({ kind: 'keepalive', keepalive: {} }));
  }

  sendDesiredState(servers: DesiredServer[]): boolean {
    return this.send({ kind: 'desiredState', desiredState: { servers, revision: ++this.revision, leaseTerm: this.leaseTerm } });
  }

  /**
   * Sends one server's change (`server` null: it is not the Node's any more). False before the
   * stream's first full state: a change read before that full state is in it, one read after comes
   * after it (the desired-state sender loads and sends both one at a time per Node).
   */
  sendDesiredChange(serverId: string, server: DesiredServer | null): boolean {
    if (this.revision === 0) return false;
    return this.send({ kind: 'desiredServerChange', desiredServerChange: { revision: ++this.revision, server, removedServerId: server ? '' : serverId, leaseTerm: this.leaseTerm } });
  }

  /** Sends a request and resolves with the Agent's final answer; `ok: false` rejects with AgentRequestError. */
  request(body: RequestBody, options: RequestOptions): Promise<Response> {
    if (this.closedFlag) return Promise.reject(new NodeUnavailableError(this.nodeId, 'not_connected'));
    const requestId = `${this.id}.${++this.nextRequest}`;
    const deadlineUnixMs = this.clock.now().getTime() + options.timeoutMs;
    return new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new NodeUnavailableError(this.nodeId, 'deadline'));
      }, options.timeoutMs);
      this.pending.set(requestId, { resolve, reject, onPart: options.onPart, timer });
      this.send({ kind: 'request', request: { requestId, deadlineUnixMs, leaseTerm: this.leaseTerm, ...body } });
    });
  }

  /** An answer from the Agent; answers to unknown ids (too late, or never asked) are dropped. */
  answer(response: Response): void {
    const pending = this.pending.get(response.requestId);
    if (!pending) return;
    if (response.ok && response.more) {
      pending.onPart?.(response);
      return;
    }
    clearTimeout(pending.timer);
    this.pending.delete(response.requestId);
    if (response.ok) pending.resolve(response);
    else pending.reject(new AgentRequestError(response.error?.code || 'INTERNAL', response.error?.message || 'The Agent refused the request.'));
  }

  /**
   * Ends the stream: with a status when the Controller ends it (revocation: UNAUTHENTICATED,
   * replacement: ABORTED), or plainly when the Agent already went away. `trailers` go with the
   * status (`cairn-owner`: where the Node's holder is).
   */
  close(status?: { code: GrpcStatus; details: string }, trailers?: Record<string, string>): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.keepalive?.stop();
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new NodeUnavailableError(this.nodeId, 'closed'));
      this.pending.delete(id);
    }
    if (status && trailers) {
      const metadata = new Metadata();
      for (const [key, value] of Object.entries(trailers)) metadata.set(key, value);
      this.call.emit('error', { ...status, metadata });
    } else if (status) this.call.emit('error', status);
    else if (!this.call.writableEnded) this.call.end();
  }
}
