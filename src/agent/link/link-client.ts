import * as grpc from '@grpc/grpc-js';
import type {
  AgentMessage, ConsoleEnd, ConsoleLine, ControllerMessage, DesiredServer, DesiredServerChange, DesiredState, Heartbeat, Hello, Request, ResponsePayload, ServerStatus, Welcome,
} from '../../shared/link/messages.js';
import { linkWindowBytes } from '../../shared/link/flow-control.js';
import { agentLinkClientConstructor, credentialMetadataKey, type AgentLinkStub } from '../../shared/link/proto.js';
import type { Logger } from '../../shared/logger.js';
import type { BackoffPolicy } from '../../shared/backoff.js';
import { DesiredSequence } from './desired-sequence.js';
import { TermKeeper } from './term-keeper.js';
import { redialWaitMs } from './redial-wait.js';
import { SilenceWatch } from './silence-watch.js';
import { ownerTrailer } from '../../shared/link/owner-trailer.js';
import { agentErrorFromErrno, isAgentError } from '../errors.js';

/** The kinds of request the Controller sends, and the payload of each. */
export type RequestKind = Request['body'];
export type RequestPayloads = { [R in Request as R['body']]: R[R['body'] & keyof R] };

export interface RequestContext {
  requestId: string;
  /** The Controller gives up at this time. */
  deadline: Date;
  /** Aborted when the deadline passes or the stream closes: the answer would be wasted. */
  signal: AbortSignal;
  /** Sends one part of a multi-part answer (e.g. a file chunk); the handler's return value is the last part. */
  sendPart(payload: ResponsePayload): void;
}

/** Answers one kind of request; throw AgentError for a refusal with a code. */
export type RequestHandler<K extends RequestKind> = (payload: RequestPayloads[K], context: RequestContext) => Promise<ResponsePayload>;

export interface LinkClientOptions {
  /** HOST:PORT of the Controller (or of a load balancer in front of several). */
  address: string;
  channelCredentials: grpc.ChannelCredentials;
  /** The Node credential from enrollment. */
  credential: string;
  /**
   * The channel this start enrolled over, to `address`: the first dial goes on it. Each closed
   * connection costs the Controller a native HTTP/2 session that only its GC frees (about 0.26 ms
   * each, inside the pause), so a wave of new Agents should not leave one per enrollment.
   */
  enrollmentChannel?: grpc.Channel;
  /** Builds the hello for each new stream (facts can change between connections). */
  hello(): Promise<Hello>;
  /** Builds one heartbeat (samples usage). */
  heartbeat(): Promise<Heartbeat>;
  logger: Logger;
  backoff?: BackoffPolicy;
  /** A sentence saying what to fix for a failure the operator must act on (a TLS mismatch); undefined for the rest. */
  explainError?(details: string): string | undefined;
  /** The silence limit known from before this start (0: none), held until a Welcome gives one. */
  silenceLimitMs?: number;
  /** A Welcome gave a silence limit other than the one known: kept for the next start. */
  onSilenceLimit?(silenceLimitMs: number): void;
}

/**
 * Channel options shared by Connect and Enroll: keepalive notices a Controller gone without a word
 * (a crash of its host, a partition) within 35 s, and costs the Controller what a heartbeat does,
 * so not more often (a Controller that states a silence limit in Welcome is left sooner, see SilenceWatch); a private subchannel per client keeps each Agent's connection its own; the
 * link's window lets file chunks from the Controller through without a round trip per 64 KiB.
 */
export const agentChannelOptions: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.use_local_subchannel_pool': 1,
  'grpc.max_receive_message_length': 4 * 1024 * 1024,
  'grpc-node.flow_control_window': linkWindowBytes,
};

/**
 * The Agent's side of the link: keeps one Connect stream open forever (jittered exponential
 * backoff between attempts, reset by each Welcome), says hello, heartbeats at the interval the
 * Controller asks for, and gives the rest of the Agent typed hooks: `onDesiredState` for the
 * reconciler (with `onDesiredChange` for one server's change), `handle(kind, handler)` for requests, `sendServerStatus` / `sendConsoleLine` out.
 */
export class AgentLinkClient {
  private client?: AgentLinkStub;
  private call?: ReturnType<AgentLinkStub['Connect']>;
  private running = false;
  private attempt = 0;
  private welcome?: Welcome;
  private readonly desiredSequence = new DesiredSequence();
  private readonly terms: TermKeeper;
  /** The Controller that drives this Node, as the last one dialled said (`cairn-owner`): dialled next, once. */
  private owner?: string;
  /** Redirects followed since the last Welcome: a few are followed at once, more wait their backoff. */
  private redirects = 0;
  /**
   * How long the Controller may stay silent (Welcome.silence_limit_ms; 0: no limit). Kept across
   * streams (and, through `onSilenceLimit`, across starts): the Controllers of one store share it,
   * so it bounds the wait for the next Welcome too.
   */
  private silenceLimitMs = 0;
  /** The last dial's credential was refused: back off in full until a Welcome. */
  private credentialRefused = false;
  private silence?: SilenceWatch;
  /** Until the first dial takes it (or `stop` closes it). */
  private enrollmentChannel?: grpc.Channel;
  private heartbeatTimer?: NodeJS.Timeout;
  private reconnectTimer?: NodeJS.Timeout;
  private heartbeatBusy = false;
  private readonly inFlight = new Set<AbortController>();
  private readonly handlers = new Map<RequestKind, RequestHandler<RequestKind>>();
  private readonly desiredListeners = new Set<(state: DesiredState) => void>();
  private readonly changeListeners = new Set<(serverId: string, server: DesiredServer | null) => void>();
  private readonly connectedListeners = new Set<(welcome: Welcome) => void>();
  private readonly disconnectedListeners = new Set<(reason: string) => void>();

  constructor(private readonly options: LinkClientOptions) {
    this.terms = new TermKeeper(options.logger);
    this.silenceLimitMs = options.silenceLimitMs ?? 0;
    this.enrollmentChannel = options.enrollmentChannel;
  }

  /** True between a Welcome and the end of that stream. */
  get connected(): boolean {
    return this.welcome !== undefined;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.open();
  }

  /** Ends the stream and stops reconnecting. */
  stop(): void {
    this.running = false;
    clearTimeout(this.reconnectTimer);
    this.enrollmentChannel?.close();
    this.enrollmentChannel = undefined;
    this.teardown('stopped');
  }

  /** The reconciler's input: every full DesiredState the Controller sends; a late subscriber gets the current one at once. */
  onDesiredState(listener: (state: DesiredState) => void): () => void {
    this.desiredListeners.add(listener);
    const current = this.desiredSequence.state;
    if (current) listener(current);
    return () => this.desiredListeners.delete(listener);
  }

  /** One server's desired state changed in sequence (`server` null: it is not the Node's any more). */
  onDesiredChange(listener: (serverId: string, server: DesiredServer | null) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Runs after each accepted connection (e.g. to resend every server's status). */
  onConnected(listener: (welcome: Welcome) => void): () => void {
    this.connectedListeners.add(listener);
    return () => this.connectedListeners.delete(listener);
  }

  onDisconnected(listener: (reason: string) => void): () => void {
    this.disconnectedListeners.add(listener);
    return () => this.disconnectedListeners.delete(listener);
  }

  /** Registers the one handler of a request kind; kinds without a handler are answered UNSUPPORTED. */
  handle<K extends RequestKind>(kind: K, handler: RequestHandler<K>): void {
    this.handlers.set(kind, handler as unknown as RequestHandler<RequestKind>);
  }

  /** False while disconnected: the reconciler resends every status on the next `onConnected`. */
  sendServerStatus(status: ServerStatus): boolean {
    return this.send({ kind: 'serverStatus', serverStatus: status });
  }

  sendConsoleLine(line: ConsoleLine): boolean {
    return this.send({ kind: 'consoleLine', consoleLine: line });
  }

  /** The last message of a console subscription: the server's console ended. */
  sendConsoleEnd(end: ConsoleEnd): boolean {
    return this.send({ kind: 'consoleEnd', consoleEnd: end });
  }

  private send(message: AgentMessage): boolean {
    if (!this.call || !this.welcome) return false;
    this.call.write(message);
    return true;
  }

  private async open(): Promise<void> {
    if (!this.running) return;
    let hello: Hello;
    try {
      hello = await this.options.hello();
    } catch (err) {
      this.options.logger.error({ err }, 'building the hello failed');
      this.scheduleReconnect();
      return;
    }
    this.connect(hello);
  }

  private connect(hello: Hello): void {
    // Stopped while the hello was being built.
    if (!this.running) return;
    const Client = agentLinkClientConstructor();
    const address = this.owner ?? this.options.address;
    this.owner = undefined;
    // Only the first dial has it, and the first dial has no owner to follow: it goes to `address`.
    const enrolledOn = this.enrollmentChannel;
    this.enrollmentChannel = undefined;
    const client = new Client(address, this.options.channelCredentials, enrolledOn ? { ...agentChannelOptions, channelOverride: enrolledOn } : agentChannelOptions);
    const metadata = new grpc.Metadata();
    metadata.set(credentialMetadataKey, `Bearer ${this.options.credential}`);
    const call = client.Connect(metadata);
    this.client = client;
    this.call = call;
    let ended = false;
    const end = (reason: string, redirected = false) => {
      if (ended) return;
      ended = true;
      silence.stop();
      if (this.call === call) this.teardown(reason);
      this.scheduleReconnect(reason, redirected);
    };
    const silence = new SilenceWatch((silentMs, limitMs) => {
      const welcomed = this.call === call && this.welcome !== undefined;
      this.options.logger.warn({ event: 'controller_silent', address, silentMs, limitMs, welcomed },
        welcomed ? 'the Controller said nothing for longer than its silence limit; dialling again' : 'the Controller did not welcome this Agent within the silence limit; dialling again');
      end(`the Controller was silent for ${silentMs} ms`);
    });
    this.silence = silence;
    silence.arm(this.silenceLimitMs);
    call.on('data', (message: ControllerMessage) => {
      silence.heard();
      this.receive(message);
    });
    call.on('error', (err: grpc.ServiceError) => {
      if (err.code === grpc.status.UNAUTHENTICATED) {
        // Revoked, deleted or re-enrolled elsewhere: retrying fast would only hammer the Controller.
        this.attempt = Math.max(this.attempt, 16);
        this.credentialRefused = true;
        this.options.logger.error({ event: 'credential_refused', details: err.details }, 'the Controller refused this Node\'s credential');
      }
      const explained = this.options.explainError?.(err.details);
      if (explained) this.options.logger.error({ event: 'tls_refused', details: err.details }, explained);
      const owner = err.code === grpc.status.UNAVAILABLE ? err.metadata.get(ownerTrailer).at(0) : undefined;
      if (typeof owner === 'string' && owner !== '') {
        // Another Controller drives this Node: dial it next; if that fails, `--controller` again.
        this.owner = owner;
        this.options.logger.info({ event: 'redirected', owner, from: address }, 'the Controller sent this Agent to the one that drives its Node');
      }
      end(`${grpc.status[err.code]}: ${err.details}`, this.owner !== undefined);
    });
    call.on('end', () => end('stream ended'));
    call.write({ kind: 'hello', hello });
  }

  private receive(message: ControllerMessage): void {
    switch (message.kind) {
      case 'welcome':
        this.welcomed(message.welcome);
        return;
      case 'desiredState':
        if (!this.terms.accept(message.desiredState.leaseTerm, 'a desired state')) return;
        this.desiredSequence.full(message.desiredState);
        for (const listener of this.desiredListeners) this.guard(() => listener(message.desiredState));
        return;
      case 'desiredServerChange':
        if (!this.terms.accept(message.desiredServerChange.leaseTerm, 'a desired-state change')) return;
        this.desiredChange(message.desiredServerChange);
        return;
      case 'request':
        void this.answer(message.request);
        return;
      case 'keepalive':
        return;
    }
  }

  private desiredChange(change: DesiredServerChange): void {
    const outcome = this.desiredSequence.change(change);
    if (outcome.kind === 'change') {
      for (const listener of this.changeListeners) this.guard(() => listener(outcome.serverId, outcome.server));
    } else if (outcome.kind === 'gap') {
      this.options.logger.warn({ event: 'desired_gap', lastRevision: outcome.lastRevision, receivedRevision: outcome.receivedRevision }, 'a desired-state change arrived out of sequence; asking for the full state');
      this.send({ kind: 'requestFullState', requestFullState: { lastRevision: outcome.lastRevision, receivedRevision: outcome.receivedRevision } });
    }
  }

  private welcomed(welcome: Welcome): void {
    this.welcome = welcome;
    if (welcome.silenceLimitMs !== this.silenceLimitMs) this.guard(() => this.options.onSilenceLimit?.(welcome.silenceLimitMs));
    this.silenceLimitMs = welcome.silenceLimitMs;
    this.silence?.arm(welcome.silenceLimitMs);
    this.attempt = 0;
    this.redirects = 0;
    this.credentialRefused = false;
    this.options.logger.info({ event: 'connected', nodeId: welcome.nodeId, observedAddress: welcome.observedAddress }, 'connected to the Controller');
    void this.beat();
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => void this.beat(), Math.max(100, welcome.heartbeatIntervalMs));
    for (const listener of this.connectedListeners) this.guard(() => listener(welcome));
  }

  private async beat(): Promise<void> {
    if (this.heartbeatBusy || !this.welcome) return;
    this.heartbeatBusy = true;
    try {
      const heartbeat = await this.options.heartbeat();
      this.send({ kind: 'heartbeat', heartbeat });
    } catch (err) {
      this.options.logger.warn({ err }, 'sampling a heartbeat failed');
    } finally {
      this.heartbeatBusy = false;
    }
  }

  private async answer(request: Request): Promise<void> {
    const { requestId, deadlineUnixMs } = request;
    const call = this.call;
    const reply = (fields: { ok: boolean; more: boolean; error?: { code: string; message: string } } & ResponsePayload) => {
      if (this.call === call) this.send({ kind: 'response', response: { requestId, error: null, ...fields } });
    };
    const remaining = deadlineUnixMs - Date.now();
    if (remaining <= 0) return;
    if (!this.terms.accept(request.leaseTerm, `a ${request.body} request`)) {
      reply({ ok: false, more: false, error: { code: 'STALE_TERM', message: 'A Controller with a newer lease term drives this Node.' } });
      return;
    }
    const handler = this.handlers.get(request.body);
    if (!handler) {
      reply({ ok: false, more: false, error: { code: 'UNSUPPORTED', message: `This Agent does not handle ${request.body} requests.` } });
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('deadline passed')), remaining);
    this.inFlight.add(abort);
    const payload = (request as unknown as Record<string, RequestPayloads[RequestKind]>)[request.body];
    try {
      const last = await handler(payload, {
        requestId, deadline: new Date(deadlineUnixMs), signal: abort.signal,
        sendPart: (part) => reply({ ok: true, more: true, ...part }),
      });
      reply({ ok: true, more: false, ...last });
    } catch (err) {
      const refusal = isAgentError(err) ? err : agentErrorFromErrno(err);
      if (refusal) reply({ ok: false, more: false, error: { code: refusal.code, message: refusal.message } });
      else {
        this.options.logger.error({ err, kind: request.body }, 'request failed');
        reply({ ok: false, more: false, error: { code: 'INTERNAL', message: 'The Agent failed to carry out the request.' } });
      }
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  private teardown(reason: string): void {
    const wasConnected = this.welcome !== undefined;
    this.welcome = undefined;
    this.desiredSequence.reset();
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.silence?.stop();
    this.silence = undefined;
    for (const abort of this.inFlight) abort.abort(new Error('stream closed'));
    this.inFlight.clear();
    const call = this.call;
    const client = this.client;
    this.call = undefined;
    this.client = undefined;
    if (call) {
      call.removeAllListeners('data');
      call.on('error', () => undefined);
      call.cancel();
    }
    client?.close();
    if (wasConnected) {
      this.options.logger.warn({ event: 'disconnected', reason }, 'disconnected from the Controller');
      for (const listener of this.disconnectedListeners) this.guard(() => listener(reason));
    }
  }

  /** The next dial, after the wait `redialWaitMs` gives. */
  private scheduleReconnect(reason?: string, redirected = false): void {
    if (!this.running) return;
    clearTimeout(this.reconnectTimer);
    if (redirected) this.redirects++;
    const state = { attempt: this.attempt++, redirects: this.redirects, redirected, silenceLimitMs: this.silenceLimitMs, credentialRefused: this.credentialRefused };
    const delay = redialWaitMs(state, this.options.backoff);
    this.options.logger.info({ event: 'reconnecting', inMs: delay, attempt: this.attempt, reason }, 'reconnecting');
    this.reconnectTimer = setTimeout(() => void this.open(), delay);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.options.logger.error({ err }, 'link listener failed');
    }
  }
}
