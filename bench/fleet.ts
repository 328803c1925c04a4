/**
 * Fleet benchmark: one Controller with 5,000 Nodes and 100,000 servers (20 per Node, desired
 * STOPPED, so nothing spawns). Seeds the store as the API would (see support/fleet-seed.ts), then
 * starts the built Controller on it and measures rehydration (spawn to listening and to /readyz, the CPU until each,
 * heap, RSS); starts the real Agents in BENCH_FLEET_PROCS processes and measures the time until
 * every Node is HEALTHY, the Controller's CPU per heartbeat, heap and RSS; then PATCHes random
 * servers' reservations (~20/s for 30 s, a new generation each) while the Agents heartbeat and
 * measures change → the owning Agent has it, in BENCH_FLEET_RUNS (5) windows on the same connected fleet, each
 * late change set beside the stalls of the Controller and of its Agent process (support/stall-probe.js). Knobs: BENCH_FLEET_AGENTS (5000),
 * BENCH_FLEET_SERVERS (100000), BENCH_FLEET_PROCS (8: with 1,250 Agents in one process its own pauses reached 2.2 s; their CPU and event-loop delay are printed beside the Controller's), BENCH_FLEET_ENROLL_BATCH (100 enrolling at
 * once, shared by the processes), BENCH_FLEET_WINDOW_SECONDS (20),
 * BENCH_FLEET_CHANGES_PER_SECOND (20), BENCH_FLEET_CHANGE_SECONDS (30), BENCH_FLEET_RUNS (5 change windows),
 * BENCH_FLEET_HEALTHY_SECONDS (600: how long the Agents may take to be all HEALTHY), BENCH_FLEET_CPU_PROF (a
 * directory: the Controller writes its --cpu-prof there), BENCH_FLEET_AGENT_PROF (a directory: each Agent
 * process writes its --cpu-prof there as it stops), BENCH_FLEET_ONLY=rehydrate (stop after
 * rehydration), BENCH_FLEET_SEED_DIR (keep the seed there and reuse it), BENCH_FLEET_AGENT_NICE (10: the Agent
 * processes run under `nice`, as Agents on hosts of their own take none of the Controller's cores; 0 shares the cores
 * evenly), BENCH_FLEET_AGENT_DIR (where the Agents' data directories go: /dev/shm by default, so their installs
 * and fsyncs do not queue the Controller's on its disk's journal, as Agents on their own hosts never would; the
 * Controller's store stays on the disk), BENCH_FLEET_CONTROLLER_ARGS (node options for the Controller after those of deploy/cairn-controller.service, space-separated, e.g. `--trace-gc-nvp`).
 * Run with `npm run bench fleet`.
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiClient } from '../test/support/http.js';
import { deployedNodeOptions, startControllerProcess } from './support/controller-process.js';
import type { AgentsLag, AgentsReport, AgentsRetry, AgentsStart } from './support/fleet-agents.js';
import { cpuMs, metric, percentile, sleep } from './support/fleet-measure.js';
import { seedFleet, type FleetSeed } from './support/fleet-seed.js';
import { blame, changeWindow, goalMs, stallSpans, summary, worstSpans } from './support/fleet-changes.js';

const agentCount = Number(process.env.BENCH_FLEET_AGENTS ?? 5000);
const serverCount = Number(process.env.BENCH_FLEET_SERVERS ?? 100_000);
const procCount = Number(process.env.BENCH_FLEET_PROCS ?? 8);
const enrollBatch = Number(process.env.BENCH_FLEET_ENROLL_BATCH ?? 100);
const windowSeconds = Number(process.env.BENCH_FLEET_WINDOW_SECONDS ?? 20);
const changesPerSecond = Number(process.env.BENCH_FLEET_CHANGES_PER_SECOND ?? 20);
const changeSeconds = Number(process.env.BENCH_FLEET_CHANGE_SECONDS ?? 30);
const agentNice = Number(process.env.BENCH_FLEET_AGENT_NICE ?? 10);
const controllerArgs = (process.env.BENCH_FLEET_CONTROLLER_ARGS ?? '').split(' ').filter(Boolean);
const runs = Number(process.env.BENCH_FLEET_RUNS ?? 5);
const healthySeconds = Number(process.env.BENCH_FLEET_HEALTHY_SECONDS ?? 600);
const cpuProfDir = process.env.BENCH_FLEET_CPU_PROF;
const stallProbe = ['--import', join(import.meta.dirname, 'support', 'stall-probe.js')];
const onlyRehydrate = process.env.BENCH_FLEET_ONLY === 'rehydrate';
const healthy = 'cairn_nodes{admin_state="ENABLED",connection_state="HEALTHY"}';
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const wallNow = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-fleet-'));
  const dataDir = join(dir, 'controller');
  const agentsDir = await mkdtemp(join(process.env.BENCH_FLEET_AGENT_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir()), 'cairn-bench-fleet-agents-'));
  // Read by the stall probe in every process the bench starts after this (not the seed's Controller: no --import).
  const stallDir = join(dir, 'stalls');
  await mkdir(stallDir);
  process.env.BENCH_STALL_DIR = stallDir;
  const children: ChildProcess[] = [];
  let controller: ChildProcess | undefined;
  try {
    const perNode = Math.ceil(serverCount / agentCount);
    const seed = await seeded(dataDir, perNode);
    console.log(`load average before rehydration: ${load()}; Controller's node options: ${[...deployedNodeOptions(), ...controllerArgs].join(' ') || 'none'} (deploy/cairn-controller.service's${controllerArgs.length ? ', then BENCH_FLEET_CONTROLLER_ARGS' : ''})`);

    const spawned = performance.now();
    const started = await startControllerProcess(dataDir, [...stallProbe, ...controllerArgs, ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [])]);
    const listeningMs = performance.now() - spawned;
    controller = started.child;
    const startCpuMs = await cpuMs(controller.pid!);
    const base = `http://127.0.0.1:${started.httpPort}`;
    while ((await fetch(`${base}/readyz`)).status !== 200) await sleep(10);
    const readyMs = performance.now() - spawned;
    const readyCpuMs = await cpuMs(controller.pid!);
    const metrics = async () => (await fetch(`${base}/metrics`)).text();
    const rehydrated = await metrics();
    console.log(`servers, Nodes:              ${seed.serverIds.length} servers on ${seed.nodes.length} Nodes (${perNode} per Node, desired STOPPED)`);
    console.log(`rehydration:                 listening ${(listeningMs / 1000).toFixed(2)} s, /readyz 200 ${(readyMs / 1000).toFixed(2)} s after spawn (target < 5 s); Controller CPU until listening ${(startCpuMs / 1000).toFixed(2)} s, until /readyz 200 ${(readyCpuMs / 1000).toFixed(2)} s`);
    console.log(`heap after rehydration:      ${mib(metric(rehydrated, 'cairn_controller_nodejs_heap_size_used_bytes'))} used (not after a GC: an upper bound; target < 1 GiB), RSS ${mib(metric(rehydrated, 'cairn_controller_process_resident_memory_bytes'))}`);
    console.log(`load average:                ${load()} (2 cores, shared)`);
    if (onlyRehydrate) return;

    const admin = new ApiClient(base).withCookie(seed.cookie);
    const arrivals = new Map<string, { at: number; proc: number }>();
    const connectedAt = performance.now();
    const cpuAtConnect = await cpuMs(controller.pid!);
    let enrolled = 0;
    let refused = 0;
    const share = Math.ceil(seed.nodes.length / procCount);
    const lagAnswers: ((lag: { p99Ms: number; maxMs: number; gcMaxMs: number }) => void)[] = [];
    for (let p = 0; p < procCount; p++) {
      const nodeArgs = ['--import', 'tsx', ...stallProbe, ...(process.env.BENCH_FLEET_AGENT_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_FLEET_AGENT_PROF] : [])];
      // Started through nice(1), not reniced once forked: every thread (GC, I/O) must inherit the niceness.
      const niced = agentNice ? { execPath: 'nice', execArgv: ['-n', String(agentNice), process.execPath, ...nodeArgs] } : { execArgv: nodeArgs };
      const child = fork(join(import.meta.dirname, 'support', 'fleet-agents.ts'), [], { ...niced, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      const counts = { enrolled: 0 };
      const nodes = seed.nodes.slice(p * share, (p + 1) * share);
      child.on('message', (report: AgentsReport) => {
        if (report.kind === 'enrolled') {
          enrolled += report.count - counts.enrolled;
          counts.enrolled = report.count;
        } else if (report.kind === 'refused') {
          refused += 1;
          void reissue(admin, nodes[report.index].id).then((token) => child.send({ kind: 'retry', index: report.index, token } satisfies AgentsRetry));
        } else if (report.kind === 'lag') {
          lagAnswers[p]?.(report);
        } else {
          for (const [serverId, generation, at] of report.arrivals) arrivals.set(`${serverId} ${generation}`, { at, proc: p });
        }
      });
      const tokens = nodes.map((n) => n.token);
      const batch = Math.ceil(enrollBatch / procCount);
      child.send({ kind: 'start', controller: `127.0.0.1:${started.grpcPort}`, dataDir: join(agentsDir, `agents-${p}`), tokens, batch } satisfies AgentsStart);
    }
    let enrolledMs = 0;
    for (;;) {
      if (!enrolledMs && enrolled >= seed.nodes.length) enrolledMs = performance.now() - connectedAt;
      if (enrolledMs && metric(await metrics(), healthy) >= seed.nodes.length) break;
      if (performance.now() - connectedAt > healthySeconds * 1000) throw new Error(`${enrolled} enrolled, ${metric(await metrics(), healthy)} HEALTHY after ${healthySeconds} s (BENCH_FLEET_HEALTHY_SECONDS)`);
      // Each scrape counts every server (cairn_servers): seldom, so the bench does not load what it measures.
      await sleep(2000);
    }
    const healthyMs = performance.now() - connectedAt;
    const phaseCpu = { controller: (await cpuMs(controller.pid!)) - cpuAtConnect, agents: await agentCpuMs(children) };
    console.log(`Agents:                      ${seed.nodes.length} real Agents in ${procCount} processes (nice ${agentNice}, their data in ${agentsDir}), ${enrollBatch} enrolling at a time; ${refused} tokens refused after a lost answer and issued again`);
    console.log(`all enrolled:                ${(enrolledMs / 1000).toFixed(1)} s; all HEALTHY ${(healthyMs / 1000).toFixed(1)} s after the first Agent started`);
    const ofCore = (ms: number) => `${((ms / healthyMs) * 100).toFixed(0)}%`;
    console.log(`CPU until all HEALTHY:       Controller ${(phaseCpu.controller / 1000).toFixed(1)} s (${ofCore(phaseCpu.controller)} of one core); Agent processes ${phaseCpu.agents.map((ms) => `${(ms / 1000).toFixed(1)} s (${ofCore(ms)})`).join(', ')}`);

    // On one machine the 100,000 servers the Agents just installed share the Controller's disk: their writeback would
    // hold up the Controller's fdatasyncs (and so every change) for minutes. Agents on their own hosts never would.
    const dirty = await dirtyMiB();
    const syncStarted = performance.now();
    await promisify(execFile)('sync');
    console.log(`written back after enrolling: ${dirty.toFixed(0)} MiB dirty in the page cache, synced in ${((performance.now() - syncStarted) / 1000).toFixed(1)} s before measuring (the installs of a fleet on its own hosts never share the Controller's disk)`);
    const window = await steadyWindow(controller.pid!, metrics, children);
    console.log(`steady state (${windowSeconds} s):        ${window.beats} heartbeats (${(window.beats / windowSeconds).toFixed(0)}/s); Controller CPU ${((window.cpu / windowSeconds) / 10).toFixed(1)}% of one core; Agent processes ${window.agentsCpu.map((ms) => `${((ms / windowSeconds) / 10).toFixed(0)}%`).join(', ')}`);
    console.log(`Controller CPU per heartbeat: ${window.beats > 0 ? ((window.cpu * 1000) / window.beats).toFixed(0) : 'n/a'} µs (all of the Controller's work in the window but the bench's two scrapes, per heartbeat; one scrape of /metrics took ${window.scrapeCpu} ms of CPU)`);
    console.log(`Controller heap, RSS:        ${mib(window.heap)} used, RSS ${mib(window.rss)}; load average ${load()}`);

    const agentLags = () => Promise.all(children.map((child, p) => new Promise<{ p99Ms: number; maxMs: number; gcMaxMs: number }>((resolve) => {
      lagAnswers[p] = resolve;
      child.send({ kind: 'lag' } satisfies AgentsLag);
    })));
    // The first PATCH a Controller serves loads koa-body and compiles its route's schemas (100-200 ms, once per
    // process); a fleet's Controller served it long ago, so one untimed second of changes comes before the windows.
    const warm = await changeWindow(admin, seed, arrivals, { perSecond: changesPerSecond, seconds: 1, procCount });
    console.log(`warm-up (not counted):      ${warm.sent} PATCH /servers/{id} in 1 s; change → owning Agent max ${percentile(warm.ms, 1).toFixed(1)} ms`);
    const p99s: number[] = [];
    for (let run = 1; run <= runs; run++) {
      await agentLags();
      const gcBefore = gcSeconds(await metrics());
      const from = wallNow();
      const fromMono = process.hrtime.bigint() / 1000n;
      const latencies = await changeWindow(admin, seed, arrivals, { perSecond: changesPerSecond, seconds: changeSeconds, procCount });
      const to = wallNow();
      // The monotonic clock the CPU profiles are stamped with (µs), to cut each process's profile to this window.
      if (cpuProfDir || process.env.BENCH_FLEET_AGENT_PROF) console.log(`run ${run}: profile window ${fromMono} to ${process.hrtime.bigint() / 1000n} µs`);
      const text = await metrics();
      const lags = await agentLags();
      const controllerSpans = await stallSpans(stallDir, controller.pid!);
      const agentSpans = await Promise.all(children.map((child) => stallSpans(stallDir, child.pid!)));
      const gc = gcSeconds(text);
      const met = blame(latencies.late, controllerSpans, agentSpans);
      p99s.push(percentile(latencies.ms, 0.99));
      console.log(`run ${run} of ${runs}:                  ${latencies.sent} PATCH /servers/{id} (memory reservation toggled: a new generation) at ${changesPerSecond}/s for ${changeSeconds} s, while heartbeating; load average ${load()}`);
      console.log(`  PATCH answered:            ${summary(latencies.answered)} (request to answer: the change is stored, its send to the Agent queued)`);
      console.log(`  change → owning Agent:     ${summary(latencies.ms)}; ${latencies.lost} not received in 5 s (target p99 < ${goalMs} ms)`);
      console.log(`  the same, per Agent proc:  p99 ${latencies.byProc.map((list) => percentile(list, 0.99).toFixed(1)).join(', ')} ms`);
      console.log(`  ${latencies.late.length} changes ≥ ${goalMs} ms; what they met (≥ 10 ms): ${met}`);
      console.log(`  Controller:                event-loop delay p99 ${(metric(text, 'cairn_controller_nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(1)} ms, max ${(metric(text, 'cairn_controller_nodejs_eventloop_lag_max_seconds') * 1000).toFixed(1)} ms; GC ${((gc.major - gcBefore.major) * 1000).toFixed(0)} ms major (${gc.majorCount - gcBefore.majorCount}), ${((gc.all - gcBefore.all) * 1000).toFixed(0)} ms in all; longest stalls, GC pauses, fdatasyncs: ${worstSpans(controllerSpans, from, to)}`);
      console.log(`  Agent procs:               event-loop delay p99 / max (longest GC pause) ${lags.map((l) => `${l.p99Ms.toFixed(1)} / ${l.maxMs.toFixed(1)} ms (${l.gcMaxMs.toFixed(0)} ms)`).join(', ')} (their own lateness adds to the arrivals they report)`);
      console.log(`  still HEALTHY:             ${metric(text, healthy)}; heap ${mib(metric(text, 'cairn_controller_nodejs_heap_size_used_bytes'))}, RSS ${mib(metric(text, 'cairn_controller_process_resident_memory_bytes'))}`);
    }
    const under = p99s.filter((p99) => p99 < goalMs).length;
    console.log(`change → Agent p99 per run:  ${p99s.map((p99) => `${p99.toFixed(1)} ms`).join(', ')}: ${under} of ${runs} under ${goalMs} ms (${under === runs ? 'goal met' : 'goal not met'}); one seeded fleet, its Agents connected throughout`);
  } finally {
    await Promise.all(children.map(async (child) => {
      if (child.exitCode !== null) return;
      child.send({ kind: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await once(child, 'exit');
      clearTimeout(timer);
    }));
    if (controller && controller.exitCode === null) {
      controller.kill('SIGTERM');
      await once(controller, 'exit');
    }
    await rm(dir, { recursive: true, force: true });
    await rm(agentsDir, { recursive: true, force: true });
  }
}

/**
 * A fresh seed, or with BENCH_FLEET_SEED_DIR a copy of the one kept there (made and kept on the
 * first run): rehydration can be measured again without seeding again. Its tokens last an hour.
 */
async function seeded(dataDir: string, perNode: number): Promise<FleetSeed> {
  const keep = process.env.BENCH_FLEET_SEED_DIR;
  if (keep && existsSync(join(keep, 'seed.json'))) {
    await cp(join(keep, 'controller'), dataDir, { recursive: true });
    console.log(`seed: copied from ${keep}`);
    return JSON.parse(await readFile(join(keep, 'seed.json'), 'utf8')) as FleetSeed;
  }
  const seed = await seedFleet(dataDir, agentCount, perNode, (line) => console.log(line));
  if (keep) {
    await cp(dataDir, join(keep, 'controller'), { recursive: true });
    await writeFile(join(keep, 'seed.json'), JSON.stringify(seed));
  }
  return seed;
}

/**
 * A new enrollment token for a Node whose token was refused. A fallback: Enroll retries carry the
 * attempt id and a lost answer is given again, so runs since then refuse none.
 */
async function reissue(admin: ApiClient, nodeId: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await admin.post<{ enrollmentToken: string }>(`/nodes/${nodeId}/enrollment-token`);
      if (res.status !== 201) throw new Error(`re-issuing a token answered ${res.status}: ${res.text}`);
      return res.body.enrollmentToken;
    } catch (err) {
      if (attempt === 5) throw err;
      await sleep(1000);
    }
  }
}

/** The page cache's dirty MiB (not yet written back), from /proc/meminfo. */
async function dirtyMiB(): Promise<number> {
  const kib = /^Dirty:\s+(\d+) kB/m.exec(await readFile('/proc/meminfo', 'utf8'))?.[1];
  return Number(kib ?? 0) / 1024;
}

/** The Controller's GC time so far (prom-client's histogram): major collections and all kinds. */
function gcSeconds(text: string) {
  const sum = (kind: string) => metric(text, `cairn_controller_nodejs_gc_duration_seconds_sum{kind="${kind}"}`);
  const all = ['major', 'minor', 'incremental', 'weakcb'].reduce((total, kind) => total + sum(kind), 0);
  return { major: sum('major'), majorCount: metric(text, 'cairn_controller_nodejs_gc_duration_seconds_count{kind="major"}'), all };
}

/** Each Agent process's CPU so far: the bench's own clients must not be what limits the Controller. */
const agentCpuMs = (children: ChildProcess[]) => Promise.all(children.map((child) => cpuMs(child.pid!)));

/** The Controller's CPU, heartbeats, heap and RSS over the steady window, and the Agent processes' CPU. */
async function steadyWindow(pid: number, metrics: () => Promise<string>, children: ChildProcess[]) {
  // The CPU is read between the two scrapes, not around them: each scrape counts all the servers
  // (`cairn_servers`), the bench's own load, which is not the heartbeats'.
  const beatsBefore = metric(await metrics(), 'cairn_agent_heartbeats_total');
  const before = { cpu: await cpuMs(pid), agentsCpu: await agentCpuMs(children) };
  await sleep(windowSeconds * 1000);
  const cpuEnd = await cpuMs(pid);
  const agentsCpu = await agentCpuMs(children);
  const text = await metrics();
  return {
    cpu: cpuEnd - before.cpu,
    scrapeCpu: (await cpuMs(pid)) - cpuEnd,
    agentsCpu: agentsCpu.map((ms, i) => ms - before.agentsCpu[i]),
    beats: metric(text, 'cairn_agent_heartbeats_total') - beatsBefore,
    heap: metric(text, 'cairn_controller_nodejs_heap_size_used_bytes'),
    rss: metric(text, 'cairn_controller_process_resident_memory_bytes'),
  };
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
