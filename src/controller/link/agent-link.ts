import * as grpc from '@grpc/grpc-js';
import * as net from 'node:net';
import type { Clock } from '../../shared/clock.js';
import { agentLinkService, credentialMetadataKey, type AgentLinkHandlers } from '../../shared/link/proto.js';
import { defaultGamePorts, isGamePortRange } from '../../shared/game-ports.js';
import type { AgentMessage, EnrollRequest, EnrollResponse, Hello, PortRange, RequestFullState } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { emptyResources, type NodeFleet } from '../actors/fleet.js';
import type { NodeTimings } from '../actors/node-machine.js';
import type { NodeIsolationDoc } from '../store/records.js';
import type { AgentGate } from './agent-gate.js';
import { serveArtifact, type ArtifactProvider } from './artifact-rpc.js';
import { EnrollSlots } from './enroll-slots.js';
import { connectRefusalOf } from './connect-refusal.js';
import { EnrollmentRefusedError } from './errors.js';
import type { LinkMetrics } from '../metrics/link-metrics.js';
import { NodeSession, type AgentStream } from './node-session.js';
import { peerAddress } from './peer-address.js';
import { widenSessionWindows } from './session-windows.js';
import type { AgentSessions } from './session-registry.js';
import { fromLinkStatus } from './status-report.js';
import type { DiskIsolation } from '../store/records.js';
import type { NodeOwnership } from '../core/node-ownership.js';
import { ownerTrailer } from '../../shared/link/owner-trailer.js';

export interface AgentLinkDeps {
  gate: AgentGate;
  fleet: NodeFleet;
  agents: AgentSessions;
  metrics: LinkMetrics;
  logger: Logger;
  clock: Clock;
  timings: NodeTimings;
  /** Plugin jars Nodes fetch with FetchArtifact. */
  artifacts?: ArtifactProvider;
  /** Which Nodes this Controller drives (several Controllers on one store); without it, every Node under term 0. */
  ownership?: Pick<NodeOwnership, 'admit'>;
  /**
   * Told to each Agent in Welcome (`silence_limit_ms`): it leaves a Controller silent this long, and
   * this one sends a Keepalive on a quiet stream in time. Set with leases, where another Controller
   * can take the Node over; 0 or absent alone on the embedded store (nowhere else to go).
   */
  silenceLimitMs?: number;
}

export interface ListenOptions {
  host: string;
  port: number;
  tls?: { cert: Buffer; key: Buffer };
}

/** An Agent must say hello this soon after connecting. */
const helloTimeoutMs = 10_000;

/**
 * The gRPC server of `cairn.agent.v1.AgentLink`. It authenticates streams, keeps one session per
 * Node in AgentSessions, and turns Agent messages into fleet events, session answers and the
 * events AgentSessions publishes to the services.
 * Keepalive pings (every 60 s, 5 s to answer) close the stream of a frozen (not closed) Agent and
 * free its socket; the fleet notices the missed heartbeats sooner (DEGRADED at 15 s, UNREACHABLE at
 * 45 s). They are rare on purpose: a ping costs the Controller about what a heartbeat does, and at
 * 10 s the server's and the Agents' pings were half of its CPU for a connected fleet.
 */
/**
 * A connection that has sent nothing this long after it opened (a scanner, a half-open client,
 * neither TLS hello nor HTTP/2 preface) is closed: it would otherwise hold a socket for good.
 */
export const silentConnectionMs = 5_000;

/**
 * Enrolls worked on at once, and how many more may wait their turn. Beyond that an Enroll answers
 * UNAVAILABLE before any work, and the Agent retries after a backoff with jitter.
 */
export const enrollLimits = { running: 64, waiting: 5_000 };

export class AgentLinkServer {
  private readonly enrollSlots = new EnrollSlots(enrollLimits.running, enrollLimits.waiting);
  /** Session ids prefix request ids, so an answer meant for a replaced stream never matches. */
  private sessionCounter = 0;
  private readonly server = new grpc.Server({
    'grpc.keepalive_time_ms': 60_000,
    'grpc.keepalive_timeout_ms': 5_000,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
  });
  private listener?: net.Server;

  constructor(private readonly deps: AgentLinkDeps) {
    widenSessionWindows(this.server);
    const handlers: AgentLinkHandlers = {
      Enroll: (call, callback) => void this.enroll(call, callback),
      Connect: (call) => void this.connect(call),
      FetchArtifact: (call) => void serveArtifact(call, bearer(call.metadata), this.deps),
    };
    this.server.addService(agentLinkService(), handlers);
  }

  /** Between a successful bind and close (`/readyz` shows it). */
  get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  async listen(options: ListenOptions): Promise<number> {
    const credentials = options.tls
      ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: options.tls.cert, private_key: options.tls.key }], false)
      : grpc.ServerCredentials.createInsecure();
    // Our own listener hands each socket to gRPC, so a socket that never speaks can be dropped:
    // gRPC's idle timeout cannot close a session whose peer never sent the preface.
    const injector = this.server.createConnectionInjector(credentials);
    const listener = net.createServer((socket) => {
      // gRPC takes the socket only once it has spoken; TLS and HTTP/2 both read what is buffered.
      const silent = setTimeout(() => socket.destroy(), silentConnectionMs);
      socket.on('error', () => undefined);
      socket.once('close', () => clearTimeout(silent));
      socket.once('readable', () => {
        clearTimeout(silent);
        if (!socket.destroyed) injector.injectConnection(socket);
      });
    });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(options.port, options.host, () => {
        listener.off('error', reject);
        resolve();
      });
    });
    this.listener = listener;
    return (listener.address() as net.AddressInfo).port;
  }

  /** Closes every stream (the Agents reconnect to the next Controller) and stops listening. */
  async close(): Promise<void> {
    this.deps.agents.closeAll();
    this.listener?.close();
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2_000);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }

  private async enroll(call: grpc.ServerUnaryCall<EnrollRequest, EnrollResponse>, callback: grpc.sendUnaryData<EnrollResponse>): Promise<void> {
    if (!(await this.enrollSlots.acquire())) {
      this.deps.metrics.refused('enroll_busy');
      callback({ code: grpc.status.UNAVAILABLE, details: 'The Controller is enrolling many Agents at once; retry after a backoff.' });
      return;
    }
    try {
      // A client that gave up while waiting its turn retries (with the same attempt id): no work for nobody.
      if (call.cancelled || Number(call.getDeadline()) <= Date.now()) {
        callback({ code: grpc.status.DEADLINE_EXCEEDED, details: 'The Enroll waited its turn past its deadline; retry.' });
        return;
      }
      callback(null, await this.deps.gate.enroll(call.request, peerAddress(call.getPeer())));
    } catch (e) {
      if (e instanceof EnrollmentRefusedError) {
        this.deps.metrics.refused(e.reason);
        callback({ code: grpc.status.UNAUTHENTICATED, details: 'The enrollment token is unknown, used or expired, or its Node is revoked.' });
        return;
      }
      this.deps.logger.error({ err: e }, 'enrollment failed');
      callback({ code: grpc.status.INTERNAL, details: 'Enrollment failed on the Controller.' });
    } finally {
      this.enrollSlots.release();
    }
  }

  private async connect(call: AgentStream): Promise<void> {
    const observedAddress = peerAddress(call.getPeer());
    let nodeId: string;
    try {
      nodeId = await this.deps.gate.authenticate(bearer(call.metadata));
    } catch (e) {
      const { code, reason, fault } = connectRefusalOf(e);
      if (fault) this.deps.logger.error({ err: e }, 'authenticating an Agent failed');
      this.deps.metrics.refused(reason);
      this.deps.logger.warn({ event: 'agent_refused', reason, peer: observedAddress }, 'Agent connection refused');
      call.emit('error', { code, details: `connection refused: ${reason}` });
      return;
    }
    const session = new NodeSession(`s${++this.sessionCounter}`, nodeId, observedAddress, call, this.deps.clock);
    let greeted = false;
    const helloTimer = setTimeout(() => {
      if (!greeted) session.close({ code: grpc.status.DEADLINE_EXCEEDED, details: 'no hello' });
    }, helloTimeoutMs);

    const ended = () => {
      clearTimeout(helloTimer);
      session.close();
      if (greeted && this.deps.agents.detach(session)) {
        this.deps.fleet.disconnected(nodeId);
        this.deps.logger.info({ event: 'agent_disconnected', nodeId }, 'Agent disconnected');
      }
    };
    call.on('end', ended);
    call.on('cancelled', ended);
    call.on('close', ended);
    call.on('error', ended);

    call.on('data', (message: AgentMessage) => {
      if (session.closed) return;
      if (!greeted) {
        if (message.kind !== 'hello') {
          session.close({ code: grpc.status.FAILED_PRECONDITION, details: 'the first message must be hello' });
          return;
        }
        greeted = true;
        clearTimeout(helloTimer);
        void this.greet(session, message.hello);
        return;
      }
      this.dispatch(session, message);
    });
  }

  /**
   * Whether this Controller drives the Node: an Agent whose Node another Controller holds is sent
   * there (UNAVAILABLE with the `cairn-owner` trailer); one nobody holds is claimed here.
   */
  private async admitted(session: NodeSession): Promise<boolean> {
    if (!this.deps.ownership) return true;
    const { nodeId } = session;
    try {
      const admission = await this.deps.ownership.admit(nodeId);
      if (admission.kind === 'mine') {
        session.leaseTerm = admission.term;
        return true;
      }
      if (admission.kind === 'elsewhere') {
        this.deps.logger.info({ event: 'agent_redirected', nodeId, owner: admission.address }, 'Agent sent to the Controller that drives its Node');
        session.close({ code: grpc.status.UNAVAILABLE, details: 'another Controller drives this Node' }, { [ownerTrailer]: admission.address });
        return false;
      }
    } catch (err) {
      this.deps.logger.warn({ err, nodeId }, 'the Node\'s lease could not be read or claimed');
    }
    session.close({ code: grpc.status.UNAVAILABLE, details: 'no Controller can drive this Node right now; retry' });
    return false;
  }

  private async greet(session: NodeSession, hello: Hello): Promise<void> {
    const { nodeId } = session;
    // From the hello on, not only after the Welcome: an Agent gives a slow admission (a busy store) as long as this
    // Controller keeps talking, and leaves a frozen one after the limit the last Welcome it had told it.
    session.keepAlive(this.deps.silenceLimitMs ?? 0);
    if (!(await this.admitted(session)) || session.closed) return;
    this.deps.agents.attach(session);
    const connected = this.deps.fleet.connected(nodeId, {
      agentVersion: hello.agentVersion,
      hostname: hello.host?.hostname ?? '',
      os: hello.host?.os ?? '',
      arch: hello.host?.arch ?? '',
      runtimeName: hello.host?.runtimeName ?? '',
      runtimeVersion: hello.host?.runtimeVersion ?? '',
      allocatable: hello.allocatable ?? emptyResources(),
      gamePorts: this.gamePortsOf(nodeId, hello),
      ...(hello.isolation ? { isolation: isolationOf(hello.isolation) } : {}),
      runtimes: hello.runtimes.map((r) => ({ name: r.name, version: r.version, major: r.major, path: r.path })),
    }, session.observedAddress);
    if (connected === 'revoked') {
      // Revoked between the credential check and the hello.
      this.deps.agents.disconnect(nodeId, grpc.status.UNAUTHENTICATED, 'connection refused: node_revoked');
      return;
    }
    if (connected === 'not_loaded') {
      // Among several Controllers: the Node's lease was lost and taken again here while its record is read again, or it
      // was deleted meanwhile. A refusal of its credential would send the Agent into its longest backoff; it dials again
      // soon instead, and a deleted Node's credential is refused then.
      this.deps.logger.info({ event: 'agent_retry_soon', nodeId }, 'the Node is not loaded on this Controller yet; the Agent dials again');
      this.deps.agents.disconnect(nodeId, grpc.status.UNAVAILABLE, 'the Node is being loaded on this Controller; retry');
      return;
    }
    this.deps.logger.info({ event: 'agent_connected', nodeId, peer: session.observedAddress, agentVersion: hello.agentVersion }, 'Agent connected');
    session.acceptsChanges = hello.acceptsDesiredChanges;
    session.send({ kind: 'welcome', welcome: { nodeId, heartbeatIntervalMs: this.deps.timings.heartbeatIntervalMs, observedAddress: session.observedAddress, silenceLimitMs: this.deps.silenceLimitMs ?? 0 } });
    await this.sendFullState(nodeId);
  }

  /** The Agent missed a change (a bug or a lost message somewhere): it gets the whole state again. */
  private resync(session: NodeSession, ask: RequestFullState): void {
    const { nodeId } = session;
    this.deps.logger.warn({ event: 'desired_resync', nodeId, lastRevision: ask.lastRevision, receivedRevision: ask.receivedRevision }, 'the Agent asked for its full desired state');
    void this.sendFullState(nodeId);
  }

  /** The services load and send the Node's full desired state; one that cannot be loaded closes the stream, so the Agent retries. */
  private async sendFullState(nodeId: string): Promise<void> {
    try {
      await this.deps.agents.wantFullState(nodeId);
    } catch (err) {
      this.deps.logger.error({ err, nodeId }, 'loading the desired state failed; closing the stream so the Agent retries');
      this.deps.agents.disconnect(nodeId, grpc.status.UNAVAILABLE, 'desired state unavailable');
    }
  }

  /** An Agent older than `game_ports` offers the default range; a range outside the rule is a bug there, logged and replaced by the default. */
  private gamePortsOf(nodeId: string, hello: Hello): PortRange {
    if (!hello.gamePorts) return defaultGamePorts;
    if (isGamePortRange(hello.gamePorts)) return { first: hello.gamePorts.first, last: hello.gamePorts.last };
    this.deps.logger.warn({ event: 'invalid_game_ports', nodeId, gamePorts: hello.gamePorts }, 'the Agent offers an invalid game port range; using the default');
    return defaultGamePorts;
  }

  private dispatch(session: NodeSession, message: AgentMessage): void {
    switch (message.kind) {
      case 'heartbeat':
        this.deps.metrics.heartbeat(message.heartbeat.sentAtUnixMs);
        this.deps.fleet.heartbeat(session.nodeId, message.heartbeat.usage ?? emptyResources(), message.heartbeat.conditions);
        return;
      case 'serverStatus':
        this.deps.agents.emitServerReport(session.nodeId, fromLinkStatus(message.serverStatus));
        return;
      case 'consoleLine':
        this.deps.agents.emitConsoleLine(session.nodeId, message.consoleLine);
        return;
      case 'consoleEnd':
        this.deps.agents.emitConsoleEnd(session.nodeId, message.consoleEnd);
        return;
      case 'response':
        session.answer(message.response);
        return;
      case 'requestFullState':
        this.resync(session, message.requestFullState);
        return;
      case 'hello':
        session.close({ code: grpc.status.FAILED_PRECONDITION, details: 'hello twice on one stream' });
        return;
    }
  }
}

/** The credential from `authorization: Bearer <credential>`; empty when absent. */
function bearer(metadata: grpc.Metadata): string {
  // The metadata may not carry the key at all: `.at(0)` says so in the type, `[0]` would not.
  const value = metadata.get(credentialMetadataKey).at(0);
  const text = typeof value === 'string' ? value : value?.toString('utf8') ?? '';
  return text.startsWith('Bearer ') ? text.slice(7) : '';
}

/** The Agent's word for how it holds disk limits; anything else (an older Agent's empty field) holds none. */
const diskIsolationOf = (disk: string): DiskIsolation => (disk === 'quota' || disk === 'accounting' ? disk : false);

/** What the Node enforces, as its hello says; `gameUids` is empty where games do not run as their own users. */
function isolationOf(isolation: NonNullable<Hello['isolation']>): NodeIsolationDoc {
  const { users, filesystem, memory, cpu, pids, gameUids, disk, network } = isolation;
  return { users, filesystem, memory, cpu, pids, ...(gameUids ? { gameUids } : {}), disk: diskIsolationOf(disk), network };
}
