/**
 * Network routes benchmark: how long from a route-changing event until the proxy applies it.
 * The built Controller in its own process, one real Agent (from source), simproxy and two simcraft
 * members. Each change is an API call that changes the routes, alternately a Node address
 * (`PATCH /nodes/{id}`: every route's address) and the lobby (`PATCH /network`: the order), one at
 * a time; it is timed from just before the request until simproxy prints `Routes reloaded`, read
 * from the proxy's console stream by the time the Agent read the line (`at`, same host clock).
 * Then the lobby is stopped and started a few times, timed from the POST until the reload.
 * Run with `npm run bench network-routes`. Knobs: BENCH_ROUTE_CHANGES (100), BENCH_MEMBER_CHANGES (10).
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from '../test/support/agent-process.js';
import type { ConsoleStreamEvent, EnrollmentIssued, NetworkRoutes, Node, ServerDetail, Team } from '../test/support/api-types.js';
import { killGames } from '../test/support/fleet.js';
import { privateGamePorts } from '../test/support/game-ports.js';
import { ApiClient, sessionCookieFrom } from '../test/support/http.js';
import { freePort } from '../test/support/sim-process.js';
import { openSse } from '../test/support/sse.js';
import { startControllerProcess } from './support/controller-process.js';

const routeChanges = Number(process.env.BENCH_ROUTE_CHANGES ?? 100);
const memberChanges = Number(process.env.BENCH_MEMBER_CHANGES ?? 10);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function summary(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${label} p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1])} (${sorted.length} changes)`);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-network-'));
  const agentDir = await mkdtemp(join(tmpdir(), 'cairn-bench-agent-'));
  const { child, httpPort, grpcPort } = await startControllerProcess(dataDir);
  let agent: AgentProcess | undefined;
  let closeConsole = () => {};
  try {
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    const anonymous = new ApiClient(baseUrl);
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await anonymous.post('/setup', {
      setupCode, username: 'bench', email: 'bench@example.com', displayName: 'Bench', password: 'bench-password-1',
      network: { name: 'bench', description: '', address: 'localhost', port: await freePort() },
    });
    const cookie = sessionCookieFrom(setup);
    const admin = anonymous.withCookie(cookie);
    const teamId = (await admin.post<Team>('/teams', { name: 'bench' })).body.id;
    const node = await admin.post<EnrollmentIssued>('/nodes', { name: 'bench-node' });
    const nodeId = node.body.node.id;
    agent = AgentProcess.start({ grpcPort, dataDir: agentDir, gamePorts: await privateGamePorts(), enrollmentToken: node.body.enrollmentToken, extra: ['--bind-address', '127.0.0.1', '--cpu-millis', '8000', '--memory-bytes', String(8 * 2 ** 30)] });
    await until(async () => ((await admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' ? true : undefined), 'the Node');

    const resources = { cpuMillis: 100, memoryBytes: 2 ** 27 };
    const proxy = (await admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources, nodeId })).body.id;
    const members: string[] = [];
    for (const name of ['lobby', 'arena']) {
      members.push((await admin.post<ServerDetail>('/servers', { name, teamId, nodeId, inNetwork: true, software: { template: 'simcraft', version: '1.21.4' }, resources })).body.id);
    }
    for (const id of [proxy, ...members]) {
      await until(async () => ((await admin.get<ServerDetail>(`/servers/${id}`)).body.phase === 'READY' ? true : undefined), 'READY');
      await admin.post(`/servers/${id}/start`);
    }
    await until(async () => ((await admin.get<NetworkRoutes>('/network/routes')).body.items.length === 2 ? true : undefined), 'two routes');
    await until(async () => ((await admin.get<ServerDetail>(`/servers/${proxy}`)).body.status.runtimeState === 'RUNNING' ? true : undefined), 'the proxy RUNNING');

    const console_ = await openSse<ConsoleStreamEvent>(`${baseUrl}/api/v1/servers/${proxy}/console?tail=0`, { cookie });
    closeConsole = () => console_.close();
    let seen = 0;
    /** Milliseconds from `startedAt` (epoch ms) until the next `Routes reloaded` line. */
    const reloadedAfter = async (startedAt: number) => {
      const line = await console_.next((e) => {
        const index = console_.events.indexOf(e);
        return index >= seen && e.event === 'line' && /Routes reloaded/.test(e.data.text);
      }, 10_000);
      seen = console_.events.indexOf(line) + 1;
      if (line.event !== 'line') throw new Error(`expected a console line, got ${line.event}`);
      return Date.parse(line.data.at) - startedAt;
    };
    // Let the start's own reloads (the members joining the routes) pass first.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    seen = console_.events.length;

    const samples: number[] = [];
    for (let i = 0; i < routeChanges; i++) {
      const startedAt = Date.now();
      const res = i % 2 === 0
        ? await admin.patch(`/nodes/${nodeId}`, { address: i % 4 === 0 ? 'localhost' : '' })
        : await admin.patch('/network', { lobbyServerId: members[(i >> 1) % 2] });
      if (res.status !== 200) throw new Error(`change ${i} answered ${res.status}: ${res.text}`);
      samples.push(await reloadedAfter(startedAt));
    }
    console.log(`proxy: simproxy on one Node with two simcraft members (loopback, 2 cores)`);
    summary('API route change → simproxy "Routes reloaded":', samples);

    const timed = { stop: [] as number[], start: [] as number[] };
    for (let i = 0; i < memberChanges; i++) {
      const verb = i % 2 === 0 ? 'stop' : 'start';
      const startedAt = Date.now();
      const res = await admin.post(`/servers/${members[0]}/${verb}`);
      if (res.status !== 202) throw new Error(`${verb} answered ${res.status}: ${res.text}`);
      // A stop drops the route with the request; a start adds it once the member reports RUNNING.
      timed[verb].push(await reloadedAfter(startedAt));
    }
    summary('member stopped (POST stop → reload):', timed.stop);
    summary('member started (POST start → reload, simcraft booting included):', timed.start);
  } finally {
    closeConsole();
    await agent?.kill();
    await killGames(agentDir);
    child.kill('SIGTERM');
    await once(child, 'exit');
    await rm(dataDir, { recursive: true, force: true });
    await rm(agentDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
