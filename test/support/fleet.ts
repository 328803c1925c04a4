import { readdir, readlink } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PortRange } from '../../src/shared/link/messages.js';
import { AgentProcess } from './agent-process.js';
import { setupAdmin, startTestController, type TestController, type TestControllerOptions } from './controller.js';
import type { EnrollmentIssued, Node, ServerDetail, Team } from './api-types.js';
import { removeGameNetworks } from './game-networks.js';
import { privateGamePorts } from './game-ports.js';
import type { ApiClient } from './http.js';
import { waitFor } from './wait-for.js';

export const GiB = 2 ** 30;

/**
 * Kills every supervisor and game an Agent data dir still has (tests leave nothing behind): each
 * supervisor runs with its state dir as cwd, and each game with its server root, so any process
 * whose cwd lies under the data dir is one of them, whatever its pid files say.
 */
export async function killGames(agentDataDir: string): Promise<void> {
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cwd = await readlink(join('/proc', pid, 'cwd')).catch(() => '');
    if (!cwd.startsWith(agentDataDir + '/')) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export const tcpAccepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** One more enrolled Agent of a fleet, on its own Node and data dir. */
export interface ExtraNode {
  nodeId: string;
  agentDir: string;
  agent: AgentProcess;
}

/** A Controller, its administrator, a team and one real enrolled Agent process. */
export interface Fleet {
  t: TestController;
  admin: ApiClient;
  teamId: string;
  nodeId: string;
  agentDir: string;
  /** The Agent's private game port range. */
  gamePorts: PortRange;
  agent: AgentProcess;
  startAgent(): Promise<AgentProcess>;
  /** Enrolls another Agent (a second Node on this host), HEALTHY when it resolves; disposed with the fleet. */
  addNode(name: string): Promise<ExtraNode>;
  dispose(): Promise<void>;
}

/** `gamePorts`: the first Agent's range (a private one of its own when absent). */
export async function startFleet(options: TestControllerOptions & { agentArgs?: string[]; gamePorts?: PortRange } = {}): Promise<Fleet> {
  const t = await startTestController(options);
  const { admin } = await setupAdmin(t);
  const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
  const node = await admin.post<EnrollmentIssued>('/nodes', { name: 'node-1' });
  const agentDir = await mkdtemp(join(tmpdir(), 'cairn-agent-'));
  const gamePorts = options.gamePorts ?? (await privateGamePorts());
  const args = ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1', ...(options.agentArgs ?? [])];
  const extras: ExtraNode[] = [];
  const extraPorts = new Map<ExtraNode, PortRange>();
  const healthy = (nodeId: string) =>
    waitFor(async () => (await admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 20_000, what: `Node ${nodeId} to be HEALTHY` });
  const fleet: Fleet = {
    t, admin, teamId, nodeId: node.body.node.id, agentDir, gamePorts,
    agent: AgentProcess.start({ grpcPort: t.controller.grpcPort, dataDir: agentDir, gamePorts, enrollmentToken: node.body.enrollmentToken, extra: args }),
    async startAgent() {
      fleet.agent = AgentProcess.start({ grpcPort: fleet.t.controller.grpcPort, dataDir: agentDir, gamePorts, extra: args });
      return fleet.agent;
    },
    async addNode(name: string) {
      const created = await admin.post<EnrollmentIssued>('/nodes', { name });
      const dir = await mkdtemp(join(tmpdir(), 'cairn-agent-'));
      const ports = await privateGamePorts();
      const agent = AgentProcess.start({ grpcPort: fleet.t.controller.grpcPort, dataDir: dir, gamePorts: ports, enrollmentToken: created.body.enrollmentToken, extra: args });
      const extra: ExtraNode = { nodeId: created.body.node.id, agentDir: dir, agent };
      extras.push(extra);
      extraPorts.set(extra, ports);
      await healthy(extra.nodeId);
      return extra;
    },
    async dispose() {
      await fleet.agent.kill();
      await killGames(agentDir);
      await removeGameNetworks(agentDir, gamePorts);
      for (const extra of extras) {
        await extra.agent.kill();
        await killGames(extra.agentDir);
        await removeGameNetworks(extra.agentDir, extraPorts.get(extra)!);
        await rm(extra.agentDir, { recursive: true, force: true });
      }
      await fleet.t.dispose();
      await rm(agentDir, { recursive: true, force: true });
    },
  };
  await healthy(fleet.nodeId);
  return fleet;
}

/** Polls a server until `predicate` holds for its detail. */
export function waitForServer(client: ApiClient, serverId: string, predicate: (s: ServerDetail) => boolean, what: string, timeoutMs = 20_000) {
  let seen = 'no answer yet';
  return waitFor(async () => {
    const res = await client.get<ServerDetail>(`/servers/${serverId}`);
    seen = res.status === 200 ? serverSummary(res.body) : `HTTP ${res.status} ${res.text}`;
    return res.status === 200 && predicate(res.body) ? res.body : undefined;
  }, { timeoutMs, intervalMs: 50, what, explain: () => seen });
}

/** Where a server stood, in one line: what a timed-out wait prints. */
export function serverSummary(s: ServerDetail): string {
  const conditions = [...s.conditions, ...s.status.conditions].map((c) => `${c.reason}: ${c.message}`).join('; ');
  const crash = s.status.lastCrash ? ` lastCrash=${JSON.stringify(s.status.lastCrash)}` : '';
  return `${s.name} phase=${s.phase} runtime=${s.status.runtimeState} pid=${s.status.pid ?? '-'} desired=${s.desiredState} ` +
    `convergence=${s.convergence} generation=${s.generation}/${s.observedGeneration} conditions=[${conditions}]${crash}`;
}
