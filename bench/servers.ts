/**
 * Servers benchmark.
 * 1. 10,000 servers, store and actors, no Agent: the records are written straight to the embedded
 *    store (each with its actor's state, READY), then a fresh process opens the store and
 *    restores every server's actor (a Controller makes each on its server's first event): time and heap per actor.
 * 2. 1,000 desired-state changes on loopback: the built Controller in another process, one Node
 *    whose Agent is the real link client in this process (reporting like a reconciler would);
 *    each POST /servers/{id}/start|stop is timed until the Agent holds its generation (a change, or a full state).
 * Run with `npm run bench servers`. Knobs: BENCH_SERVERS (10000), BENCH_CHANGES (1000).
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServerFleet, machineState } from '../src/controller/actors/server-fleet.js';
import { defaultRestartPolicy, emptyObserved } from '../src/controller/domain/server-spec.js';
import { openStore } from '../src/controller/store/open-store.js';
import type { ServerDoc } from '../src/controller/store/records.js';
import { systemClock, uuidV7Ids } from '../src/shared/clock.js';
import { FakeAgent } from '../test/support/fake-agent.js';
import type { Node, ServerDetail, Team } from '../test/support/api-types.js';
import { adminClient } from './support/admin-session.js';
import { startControllerProcess } from './support/controller-process.js';

const serverCount = Number(process.env.BENCH_SERVERS ?? 10_000);
const changeCount = Number(process.env.BENCH_CHANGES ?? 1_000);
const changeServers = 10;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (n: number) => `${n.toFixed(2)} ms`;

/** Writes `count` READY servers with their actors' state, as a create (services/servers/server-creation.ts) and INSTALLED would leave them. */
async function seed(dataDir: string, count: number): Promise<number> {
  const repos = await openStore({ dataDir, clock: systemClock });
  const fleet = new ServerFleet();
  const teamId = uuidV7Ids.next();
  const nodeId = uuidV7Ids.next();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const id = uuidV7Ids.next();
    const at = new Date().toISOString();
    const actor = fleet.create(id, {
      state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 2 ** 28 },
      inNetwork: false, restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
    }, at);
    actor.send({ type: 'INSTALLED', at });
    const { phase, context } = machineState(actor);
    const doc: ServerDoc = {
      _id: id, name: `server-${i}`, teamId, nodeId, kind: 'GAME_SERVER', gamePort: 25565 + (i % 1000), phase,
      generation: context.generation, desired: context.desired,
      observed: { ...emptyObserved(), installed: true, observedGeneration: 1, runtimeState: 'STOPPED' }, createdAt: at, updatedAt: at,
    };
    await repos.servers.insert(doc);
    fleet.remove(id);
  }
  const elapsed = performance.now() - started;
  await repos.close();
  return elapsed;
}

/** In a fresh process: open the store, then restore every server's actor (what each costs when first used). */
async function rehydrate(dataDir: string): Promise<void> {
  const heapBefore = heapUsed();
  const opened = performance.now();
  const repos = await openStore({ dataDir, clock: systemClock });
  const storeMs = performance.now() - opened;
  const heapLoaded = heapUsed();
  const started = performance.now();
  // A Controller makes each actor when its server is first sent an event; this makes them all.
  const fleet = new ServerFleet();
  for (const doc of await repos.servers.find({})) fleet.restore(doc);
  const initMs = performance.now() - started;
  const heapAfter = heapUsed();
  await repos.close();
  process.stdout.write(JSON.stringify({ storeMs, initMs, storeHeap: heapLoaded - heapBefore, actorHeap: heapAfter - heapLoaded }) + '\n');
}

async function actorsPart(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-servers-'));
  try {
    const seedMs = await seed(dataDir, serverCount);
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), 'rehydrate', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`rehydration process failed (${child.status})`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as { storeMs: number; initMs: number; storeHeap: number; actorHeap: number };
    console.log(`servers:                     ${serverCount} (store and actors, no Agent)`);
    console.log(`seeding (insert + snapshot): ${(seedMs / 1000).toFixed(2)} s`);
    console.log(`store open after restart:    ${ms(r.storeMs)} (records in memory: ${(r.storeHeap / 2 ** 20).toFixed(1)} MiB heap)`);
    console.log(`every actor restored:        ${ms(r.initMs)} = ${((r.initMs * 1000) / serverCount).toFixed(1)} µs per actor`);
    console.log(`heap per actor:              ${(r.actorHeap / serverCount / 1024).toFixed(2)} KiB (${(r.actorHeap / 2 ** 20).toFixed(1)} MiB for ${serverCount})`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function changesPart(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-changes-'));
  const { child, httpPort, grpcPort } = await startControllerProcess(dataDir);
  let agent: FakeAgent | undefined;
  try {
    const { admin } = await adminClient(httpPort, dataDir);
    const teamId = (await admin.post<Team>('/teams', { name: 'bench' })).body.id;
    agent = await FakeAgent.connect(admin, grpcPort, 'bench-node');
    const nodeId = agent.nodeId;
    for (;;) {
      if ((await admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ids: string[] = [];
    for (let i = 0; i < changeServers; i++) {
      const res = await admin.post<ServerDetail>('/servers', { name: `s${i}`, teamId, nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes: 2 ** 20 } });
      ids.push(res.body.id);
    }
    for (const id of ids) {
      for (;;) {
        if ((await admin.get<ServerDetail>(`/servers/${id}`)).body.phase === 'READY') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    // The newest generation the Agent holds per server, and who waits for which.
    const held = new Map<string, number>();
    const waiters = new Set<{ id: string; generation: number; done: () => void }>();
    const wake = () => {
      for (const w of waiters) {
        if ((held.get(w.id) ?? 0) >= w.generation) {
          waiters.delete(w);
          w.done();
        }
      }
    };
    agent.client.onDesiredState((state) => {
      for (const s of state.servers) held.set(s.serverId, s.generation);
      wake();
    });
    agent.client.onDesiredChange((serverId, server) => {
      if (server) held.set(serverId, server.generation);
      wake();
    });
    const running = new Set<string>();
    const toAgent: number[] = [];
    const toAnswer: number[] = [];
    for (let i = 0; i < changeCount; i++) {
      const id = ids[i % ids.length];
      const verb = running.has(id) ? 'stop' : 'start';
      const started = performance.now();
      const res = await admin.post<ServerDetail>(`/servers/${id}/${verb}`);
      const answered = performance.now();
      if (res.status !== 202) throw new Error(`${verb} answered ${res.status}: ${res.text}`);
      const generation = res.body.generation;
      if ((held.get(id) ?? 0) < generation) {
        await new Promise<void>((done) => waiters.add({ id, generation, done }));
      }
      toAgent.push(performance.now() - started);
      toAnswer.push(answered - started);
      if (verb === 'start') running.add(id);
      else running.delete(id);
    }
    toAgent.sort((a, b) => a - b);
    toAnswer.sort((a, b) => a - b);
    console.log(`desired-state changes:       ${changeCount} (POST start/stop over ${changeServers} servers, one at a time, loopback)`);
    console.log(`until the Agent has it:      p50 ${ms(percentile(toAgent, 50))}, p99 ${ms(percentile(toAgent, 99))}, max ${ms(toAgent[toAgent.length - 1])}`);
    console.log(`HTTP answer (202):           p50 ${ms(percentile(toAnswer, 50))}, p99 ${ms(percentile(toAnswer, 99))}`);
  } finally {
    agent?.stop();
    child.kill('SIGTERM');
    await once(child, 'exit');
    await rm(dataDir, { recursive: true, force: true });
  }
}

const [mode, dir] = process.argv.slice(2);
const run = mode === 'rehydrate' ? () => rehydrate(dir) : async () => {
  await actorsPart();
  await changesPart();
};
run().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
