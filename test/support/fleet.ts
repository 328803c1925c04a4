import { readdir, readlink } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from './agent-process.js';
import { setupAdmin, startTestController, type TestController, type TestControllerOptions } from './controller.js';
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

/** A Controller, its administrator, a team and one real enrolled Agent process. */
export interface Fleet {
  t: TestController;
  admin: ApiClient;
  teamId: string;
  nodeId: string;
  agentDir: string;
  agent: AgentProcess;
  startAgent(): Promise<AgentProcess>;
  dispose(): Promise<void>;
}

export async function startFleet(options: TestControllerOptions & { agentArgs?: string[] } = {}): Promise<Fleet> {
  const t = await startTestController(options);
  const { admin } = await setupAdmin(t);
  const teamId = (await admin.post('/teams', { name: 'Ops' })).body.id as string;
  const node = await admin.post('/nodes', { name: 'node-1' });
  const agentDir = await mkdtemp(join(tmpdir(), 'cairn-agent-'));
  const args = ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1', ...(options.agentArgs ?? [])];
  const fleet: Fleet = {
    t, admin, teamId, nodeId: node.body.node.id, agentDir,
    agent: AgentProcess.start({ grpcPort: t.controller.grpcPort, dataDir: agentDir, enrollmentToken: node.body.enrollmentToken, extra: args }),
    async startAgent() {
      fleet.agent = AgentProcess.start({ grpcPort: fleet.t.controller.grpcPort, dataDir: agentDir, extra: args });
      return fleet.agent;
    },
    async dispose() {
      await fleet.agent.kill();
      await killGames(agentDir);
      await fleet.t.dispose();
      await rm(agentDir, { recursive: true, force: true });
    },
  };
  await waitFor(async () => (await admin.get(`/nodes/${fleet.nodeId}`)).body.status?.connectionState === 'HEALTHY', { timeoutMs: 20_000, what: 'the Node to be HEALTHY' });
  return fleet;
}

/** Polls a server until `predicate` holds for its detail. */
export function waitForServer(client: ApiClient, serverId: string, predicate: (s: any) => boolean, what: string, timeoutMs = 20_000) {
  return waitFor(async () => {
    const res = await client.get(`/servers/${serverId}`);
    return res.status === 200 && predicate(res.body) ? res.body : undefined;
  }, { timeoutMs, intervalMs: 50, what });
}
