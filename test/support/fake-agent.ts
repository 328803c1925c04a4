import * as grpc from '@grpc/grpc-js';
import { enroll } from '../../src/agent/link/enroll.js';
import { newEnrollmentAttemptId } from '../../src/agent/link/enrollment-attempt.js';
import { AgentLinkClient } from '../../src/agent/link/link-client.js';
import type { DesiredServer, DesiredState, PortRange, Runtime, ServerStatus } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { EnrollmentIssued } from './api-types.js';
import { privateGamePorts } from './game-ports.js';
import type { ApiClient } from './http.js';

/** What a fake Node says of its host in its hello. */
interface FakeHost {
  hostname?: string;
  gamePorts?: PortRange;
  acceptsDesiredChanges?: boolean;
  runtimes?: Runtime[];
}

const insecure = grpc.credentials.createInsecure();
const welcomeTimeoutMs = 30_000;

/**
 * An enrolled Node whose Agent is the real link client in this process, with a make-believe
 * reconciler: every desired server is reported installed and in its desired runtime state at
 * once (removed when DELETED), a running one as started with its desired network membership; a
 * change of one server is reported for that server alone.
 * `hold()` stops the reports, so a server stays PROVISIONING or
 * DELETING; `release()` reports the latest desired state. Cheap HEALTHY Nodes for API tests.
 */
export class FakeAgent {
  private held = false;
  private latest: DesiredServer[] = [];

  private constructor(readonly nodeId: string, readonly client: AgentLinkClient) {
    client.onDesiredState((state) => this.desired(state));
    client.onDesiredChange((serverId, server) => this.changed(serverId, server));
  }

  /**
   * `host`: the host name (the Node's name unless given), the game port range (a private one unless
   * given) it says hello with, whether it takes one server's change at a time (unless false), and
   * the runtimes it reports (none unless given).
   */
  static async connect(
    admin: ApiClient, grpcPort: number, name: string, allocatable = { cpuMillis: 8000, memoryBytes: 8 * 2 ** 30 },
    host: FakeHost = {},
  ): Promise<FakeAgent> {
    const created = await admin.post<EnrollmentIssued>('/nodes', { name });
    if (created.status !== 201) throw new Error(`node create failed: ${created.status} ${created.text}`);
    return FakeAgent.enroll(`127.0.0.1:${grpcPort}`, created.body.enrollmentToken, name, allocatable, host);
  }

  /** Enrolls with a token already issued for a Node (as `cairn-agent --controller ADDRESS --enrollment-token TOKEN` does) and connects. */
  static async enroll(
    address: string, enrollmentToken: string, name: string, allocatable = { cpuMillis: 8000, memoryBytes: 8 * 2 ** 30 },
    host: FakeHost = {},
  ): Promise<FakeAgent> {
    const hostname = host.hostname ?? name;
    const gamePorts = host.gamePorts ?? (await privateGamePorts());
    const { nodeId, credential } = await enroll(address, insecure, { enrollmentToken, hostname, agentVersion: 'fake', enrollmentAttemptId: newEnrollmentAttemptId() });
    const client = new AgentLinkClient({
      address, channelCredentials: insecure, credential, logger: silentLogger, backoff: { initialMs: 50, maxMs: 200, factor: 2 },
      // Unless told otherwise each fake Node is its own host, so Nodes do not share game ports.
      hello: async () => ({
        agentVersion: 'fake', protocolVersion: 1, knownServerIds: [],
        host: { hostname, os: 'linux', arch: 'x64', runtimeName: 'process', runtimeVersion: process.version },
        allocatable: { ...allocatable, diskBytes: 2 ** 40 },
        gamePorts,
        acceptsDesiredChanges: host.acceptsDesiredChanges ?? true,
        isolation: null,
        runtimes: host.runtimes ?? [],
      }),
      heartbeat: async () => ({ usage: { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 }, conditions: [], sentAtUnixMs: Date.now() }),
    });
    const agent = new FakeAgent(nodeId, client);
    // Returned once welcomed: the Controller marks a Node connected before its welcome, so a test may place on it at once.
    const welcomed = new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => { off(); reject(new Error(`fake Agent ${name} was not welcomed within ${welcomeTimeoutMs} ms`)); }, welcomeTimeoutMs);
      const off = client.onConnected(() => { clearTimeout(deadline); off(); resolve(); });
    });
    client.start();
    await welcomed;
    return agent;
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.report();
  }

  /** Reports one server's status as given (a crash, a condition, ...). */
  send(status: Partial<ServerStatus> & { serverId: string }): void {
    const desired = this.latest.find((d) => d.serverId === status.serverId);
    this.client.sendServerStatus({ ...statusFor(desired ?? { serverId: status.serverId, generation: 0, desiredState: 'DESIRED_RUNTIME_STATE_STOPPED' }), ...status });
  }

  /** The last desired state the Controller sent for one server. */
  desiredOf(serverId: string): DesiredServer | undefined {
    return this.latest.find((d) => d.serverId === serverId);
  }

  stop(): void {
    this.client.stop();
  }

  private desired(state: DesiredState): void {
    this.latest = state.servers;
    if (!this.held) this.report();
  }

  private changed(serverId: string, server: DesiredServer | null): void {
    this.latest = this.latest.filter((d) => d.serverId !== serverId);
    if (!server) return;
    this.latest.push(server);
    if (!this.held) this.client.sendServerStatus(statusFor(server));
  }

  private report(): void {
    for (const desired of this.latest) this.client.sendServerStatus(statusFor(desired));
  }
}

function statusFor(desired: Pick<DesiredServer, 'serverId' | 'generation' | 'desiredState'> & { inNetwork?: boolean }): ServerStatus {
  const state = desired.desiredState.replace('DESIRED_RUNTIME_STATE_', '');
  return {
    serverId: desired.serverId, observedGeneration: desired.generation,
    runtimeState: state === 'RUNNING' ? 'RUNTIME_STATE_RUNNING' : 'RUNTIME_STATE_STOPPED',
    installed: true, usage: null, conditions: [], ports: [], startedAt: '', removed: state === 'DELETED',
    restarting: false, installError: '', startedInNetwork: state === 'RUNNING' && desired.inNetwork === true, lastCrash: null, portInUse: 0, pid: 0, players: null, sleeping: null, lastWake: null,
  };
}
