/**
 * Agents benchmark: 1,000 simulated Agents (the real Agent code: enrollment, link client, usage
 * sampling, heartbeats; each with its own data dir and its own TCP connection) in this process,
 * against the built Controller in another process. Prints the time until every Node is HEALTHY,
 * the Controller's CPU per heartbeat, and its heap. Run with `npm run bench agents`.
 * Knobs: BENCH_AGENTS (1000), BENCH_WINDOW_SECONDS (20), BENCH_CPU_PROF_DIR (a V8 CPU profile of
 * the Controller, written when it exits).
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent, type RunningAgent } from '../src/agent/agent.js';
import { defaultGameUids } from '../src/agent/isolation/game-uids.js';
import { defaultGamePorts } from '../src/shared/game-ports.js';
import { silentLogger } from '../src/shared/logger.js';
import { startControllerProcess } from './support/controller-process.js';

const agentCount = Number(process.env.BENCH_AGENTS ?? 1000);
const windowSeconds = Number(process.env.BENCH_WINDOW_SECONDS ?? 20);
const profileDir = process.env.BENCH_CPU_PROF_DIR;
const ticksPerSecond = 100;

/** The Controller process's user and system CPU in ms, from /proc. */
async function cpuTimes(pid: number): Promise<{ user: number; system: number }> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return { user: (Number(fields[11]) * 1000) / ticksPerSecond, system: (Number(fields[12]) * 1000) / ticksPerSecond };
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name.replace(/[{}"=,]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-agents-'));
  const { child, httpPort, grpcPort } = await startControllerProcess(join(dataDir, 'controller'), profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []);
  const base = `http://127.0.0.1:${httpPort}`;
  const agents: RunningAgent[] = [];
  try {
    const setupCode = (await readFile(join(dataDir, 'controller', 'setup-code'), 'utf8')).trim();
    const setup = await fetch(`${base}/api/v1/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ setupCode, username: 'bench', email: 'bench@example.com', displayName: 'Bench', password: 'bench-password-1', network: { name: 'b', description: '', address: 'localhost', port: 25565 } }),
    });
    const cookie = /(__Host-cairn_session=[^;]+)/.exec(setup.headers.get('set-cookie') ?? '')![1];
    const metrics = async () => (await fetch(`${base}/metrics`)).text();

    const tokens: string[] = [];
    for (let i = 0; i < agentCount; i += 25) {
      const batch = await Promise.all(Array.from({ length: Math.min(25, agentCount - i) }, (_, j) =>
        fetch(`${base}/api/v1/nodes`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ name: `bench-${i + j}` }) })
          .then((r) => r.json() as Promise<{ enrollmentToken: string }>)));
      tokens.push(...batch.map((b) => b.enrollmentToken));
    }

    const started = performance.now();
    const starting = tokens.map((token, i) => runAgent({
      controller: `127.0.0.1:${grpcPort}`, dataDir: join(dataDir, `agent-${i}`), enrollmentToken: token,
      cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, diskBytes: 50 * 2 ** 30, javas: [], bindAddress: '127.0.0.1', restartBackoffMs: 1000,
      gamePorts: defaultGamePorts, isolation: 'off', gameUids: defaultGameUids, gameEgressAllow: [], statusIntervalMs: 10_000,
    }, silentLogger));
    agents.push(...(await Promise.all(starting)));
    const enrolledMs = performance.now() - started;
    for (;;) {
      const healthy = metric(await metrics(), 'cairn_nodes{admin_state="ENABLED",connection_state="HEALTHY"}');
      if (healthy >= agentCount) break;
      if (performance.now() - started > 120_000) throw new Error(`only ${healthy} of ${agentCount} HEALTHY after 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const healthyMs = performance.now() - started;

    // A scrape costs the Controller milliseconds (every Node's state): both stay outside the CPU window.
    const beatsBefore = metric(await metrics(), 'cairn_agent_heartbeats_total');
    const before = { cpu: await cpuTimes(child.pid!), beats: beatsBefore };
    await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000));
    const cpuAfter = await cpuTimes(child.pid!);
    const text = await metrics();
    const after = { cpu: cpuAfter, beats: metric(text, 'cairn_agent_heartbeats_total') };
    const beats = after.beats - before.beats;
    const system = after.cpu.system - before.cpu.system;
    const cpu = after.cpu.user - before.cpu.user + system;
    const heap = metric(text, 'cairn_controller_nodejs_heap_size_used_bytes');
    const rss = metric(text, 'cairn_controller_process_resident_memory_bytes');
    const still = metric(text, 'cairn_nodes{admin_state="ENABLED",connection_state="HEALTHY"}');

    console.log(`agents:                      ${agentCount} (each: enroll, own TCP connection, hello, heartbeat every 5 s)`);
    console.log(`all enrolled:                ${(enrolledMs / 1000).toFixed(2)} s`);
    console.log(`all HEALTHY:                 ${(healthyMs / 1000).toFixed(2)} s after the first Agent started`);
    console.log(`steady state (${windowSeconds} s):        ${beats} heartbeats, ${(beats / windowSeconds).toFixed(0)}/s; Controller CPU ${cpu.toFixed(0)} ms = ${((cpu / windowSeconds) / 10).toFixed(1)}% of one core`);
    console.log(`Controller CPU per heartbeat: ${beats > 0 ? ((cpu * 1000) / beats).toFixed(0) : 'n/a'} µs (${cpu > 0 ? ((100 * system) / cpu).toFixed(0) : 0}% of it in the kernel)`);
    console.log(`Controller heap used:        ${(heap / 2 ** 20).toFixed(0)} MiB (RSS ${(rss / 2 ** 20).toFixed(0)} MiB)`);
    console.log(`still HEALTHY at the end:    ${still}`);
    if (still < agentCount) throw new Error(`${agentCount - still} Nodes left HEALTHY during the steady state`);
  } finally {
    await Promise.all(agents.map((agent) => agent.stop()));
    child.kill('SIGTERM');
    await once(child, 'exit');
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
