/**
 * Link benchmark: what one desired-state change and one heartbeat cost the Controller. The built
 * Controller runs in its own process; fake Agents (the real link client, reporting like a
 * reconciler) run here. Nodes with 1 and with 500 servers, each once with an Agent that takes
 * single-server changes and once with one that does not (the full state on every change, as
 * before): bytes on the wire per change and Controller CPU per change (a `POST /servers/{id}/stop|start`,
 * HTTP included). Then one raw stream sends heartbeats as fast as the Controller takes them:
 * Controller CPU per heartbeat. Knobs: BENCH_LINK_SERVERS (500), BENCH_LINK_CHANGES (200),
 * BENCH_HEARTBEATS (20000). Run with `npm run bench link`.
 */
import * as grpc from '@grpc/grpc-js';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enroll } from '../src/agent/link/enroll.js';
import { newEnrollmentAttemptId } from '../src/agent/link/enrollment-attempt.js';
import type { ControllerMessage } from '../src/shared/link/messages.js';
import { agentLinkClientConstructor, agentLinkService, credentialMetadataKey } from '../src/shared/link/proto.js';
import { FakeAgent } from '../test/support/fake-agent.js';
import type { Node, ServerDetail, Team } from '../test/support/api-types.js';
import type { ApiClient } from '../test/support/http.js';
import { adminClient } from './support/admin-session.js';
import { startControllerProcess } from './support/controller-process.js';

const bigNode = Number(process.env.BENCH_LINK_SERVERS ?? 500);
const changeCount = Number(process.env.BENCH_LINK_CHANGES ?? 200);
const heartbeatCount = Number(process.env.BENCH_HEARTBEATS ?? 20_000);
const ticksPerSecond = 100;
const insecure = grpc.credentials.createInsecure();
const serialize = agentLinkService().Connect.responseSerialize as (message: ControllerMessage) => Buffer;

async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Case { servers: number; changes: boolean }
interface Result { bytes: number; cpuUs: number; p50Ms: number }

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-link-'));
  const { child, httpPort, grpcPort } = await startControllerProcess(dataDir);
  const agents: FakeAgent[] = [];
  try {
    const { admin } = await adminClient(httpPort, dataDir);
    const teamId = (await admin.post<Team>('/teams', { name: 'bench' })).body.id;

    const run = async ({ servers, changes }: Case, index: number): Promise<Result> => {
      const agent = await FakeAgent.connect(admin, grpcPort, `link-${index}`, { cpuMillis: 10_000_000, memoryBytes: 2 ** 50 },
        { gamePorts: { first: 40000 + index * 1000, last: 40999 + index * 1000 }, acceptsDesiredChanges: changes });
      agents.push(agent);
      while ((await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState !== 'HEALTHY') await sleep(20);
      const ids: string[] = [];
      for (let i = 0; i < servers; i += 10) {
        const batch = await Promise.all(Array.from({ length: Math.min(10, servers - i) }, (_, j) => admin.post<ServerDetail>('/servers', {
          name: `n${index}-s${i + j}`, teamId, nodeId: agent.nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes: 2 ** 20 },
        })));
        for (const res of batch) {
          if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
          ids.push(res.body.id);
        }
      }
      for (const id of ids) while ((await admin.get<ServerDetail>(`/servers/${id}`)).body.phase !== 'READY') await sleep(20);

      let bytes = 0;
      const held = new Map<string, number>();
      agent.client.onDesiredState((state) => {
        bytes += serialize({ kind: 'desiredState', desiredState: state }).length;
        for (const s of state.servers) held.set(s.serverId, s.generation);
      });
      agent.client.onDesiredChange((serverId, server) => {
        bytes += serialize({ kind: 'desiredServerChange', desiredServerChange: { revision: 1, server, removedServerId: server ? '' : serverId, leaseTerm: 0 } }).length;
        if (server) held.set(serverId, server.generation);
      });
      bytes = 0;
      const times: number[] = [];
      const running = new Set<string>();
      const cpuBefore = await cpuMs(child.pid!);
      for (let i = 0; i < changeCount; i++) {
        const id = ids[(i * 7) % ids.length];
        const verb = running.has(id) ? 'stop' : 'start';
        const started = performance.now();
        const res = await admin.post<ServerDetail>(`/servers/${id}/${verb}`);
        if (res.status !== 202) throw new Error(`${verb} answered ${res.status}: ${res.text}`);
        while ((held.get(id) ?? 0) < res.body.generation) await sleep(0);
        times.push(performance.now() - started);
        if (verb === 'start') running.add(id);
        else running.delete(id);
      }
      const cpu = (await cpuMs(child.pid!)) - cpuBefore;
      times.sort((a, b) => a - b);
      return { bytes: bytes / changeCount, cpuUs: (cpu * 1000) / changeCount, p50Ms: times[Math.floor(times.length / 2)] };
    };

    const cases: Case[] = [{ servers: 1, changes: true }, { servers: bigNode, changes: true }, { servers: 1, changes: false }, { servers: bigNode, changes: false }];
    const results: Result[] = [];
    for (const [i, c] of cases.entries()) results.push(await run(c, i));
    const row = (label: string, pick: (r: Result) => string) =>
      console.log(`${label.padEnd(34)} ${cases.map((c, i) => pick(results[i]).padStart(14)).join('')}`);
    console.log(`desired-state changes:             ${changeCount} per Node (POST start/stop one at a time, loopback; CPU includes HTTP, store, actor, audit)`);
    row('', (r) => cases[results.indexOf(r)].changes ? 'change' : 'full state');
    row('servers on the Node', (r) => String(cases[results.indexOf(r)].servers));
    row('bytes per change', (r) => r.bytes.toFixed(0));
    row('Controller CPU per change (µs)', (r) => r.cpuUs.toFixed(0));
    row('change → Agent has it, p50 (ms)', (r) => r.p50Ms.toFixed(2));

    await heartbeats(`127.0.0.1:${grpcPort}`, admin, child.pid!, `http://127.0.0.1:${httpPort}/metrics`);
  } finally {
    for (const agent of agents) agent.stop();
    child.kill('SIGTERM');
    await once(child, 'exit');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** One raw Agent stream writing heartbeats back to back; the Controller's CPU while it takes them. */
async function heartbeats(address: string, admin: ApiClient, pid: number, metricsUrl: string): Promise<void> {
  const created = await admin.post<{ enrollmentToken: string; id: string }>('/nodes', { name: 'beats' });
  const { credential } = await enroll(address, insecure, { enrollmentToken: created.body.enrollmentToken, hostname: 'beats', agentVersion: 'bench', enrollmentAttemptId: newEnrollmentAttemptId() });
  const Client = agentLinkClientConstructor();
  const client = new Client(address, insecure);
  const metadata = new grpc.Metadata();
  metadata.set(credentialMetadataKey, `Bearer ${credential}`);
  const call = client.Connect(metadata);
  const welcomed = new Promise<void>((resolve) => call.on('data', (m: ControllerMessage) => { if (m.kind === 'welcome') resolve(); }));
  call.on('error', () => undefined);
  call.write({ kind: 'hello', hello: {
    agentVersion: 'bench', protocolVersion: 1, knownServerIds: [], acceptsDesiredChanges: true, gamePorts: { first: 45000, last: 45999 },
    host: { hostname: 'beats', os: 'linux', arch: 'x64', runtimeName: 'process', runtimeVersion: process.version },
    allocatable: { cpuMillis: 4000, memoryBytes: 2 ** 33, diskBytes: 2 ** 40 },
  } });
  await welcomed;
  const counted = async () => metric(await (await fetch(metricsUrl)).text(), 'cairn_agent_heartbeats_total');
  // The Controller's CPU at rest (timers, the other Nodes' heartbeats) is not the heartbeats' cost.
  const idleBefore = await cpuMs(pid);
  await sleep(2000);
  const idlePerMs = ((await cpuMs(pid)) - idleBefore) / 2000;
  const startCount = await counted();
  const cpuBefore = await cpuMs(pid);
  const started = performance.now();
  const heartbeat = { usage: { cpuMillis: 100, memoryBytes: 2 ** 30, diskBytes: 2 ** 32 }, conditions: [], sentAtUnixMs: Date.now() };
  for (let i = 0; i < heartbeatCount; i++) {
    if (!call.write({ kind: 'heartbeat', heartbeat: { ...heartbeat, sentAtUnixMs: Date.now() } })) await once(call, 'drain');
  }
  // Scraping /metrics costs the Controller milliseconds: seldom, so it does not count as heartbeats' cost.
  while ((await counted()) - startCount < heartbeatCount) await sleep(1000);
  const elapsed = performance.now() - started;
  const cpu = (await cpuMs(pid)) - cpuBefore - idlePerMs * elapsed;
  call.end();
  client.close();
  console.log(`heartbeats:                         ${heartbeatCount} on one stream, back to back (${((heartbeatCount * 1000) / elapsed).toFixed(0)}/s; idle CPU subtracted)`);
  console.log(`Controller CPU per heartbeat:       ${((cpu * 1000) / heartbeatCount).toFixed(1)} µs (target ≤ 100 µs)`);
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
