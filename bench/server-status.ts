/**
 * Players and usage benchmark: what the Agent pays to know its servers' players and to keep their
 * usage history.
 *
 * 1. CPU per ping: the Agent's own Server List Ping client (`pingPlayers`: connect, handshake,
 *    status, ping, close) against a real simcraft in a child process, BENCH_PINGS (2,000) times in
 *    a row after 100 unmeasured. This process's CPU (process.cpuUsage, user + system) over the
 *    run, divided by the pings, is the Agent's cost of one ping; simcraft's is its own. Wall time
 *    per ping is printed too (p50, p99).
 * 2. History memory per server: BENCH_HISTORIES (1,000) usage histories filled for a whole day
 *    (8,640 samples each, so both rings are full), the heap and ArrayBuffer memory measured
 *    before and after (with gc), divided by the histories.
 * Run with `npm run bench server-status` or `npx tsx --expose-gc bench/server-status.ts`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pingPlayers } from '../src/agent/status/slp-client.js';
import { UsageHistory, coarseSlots, finePerCoarse } from '../src/agent/status/usage-history.js';
import { freePort, SimProcess, simSource } from '../test/support/sim-process.js';

const pings = Number(process.env.BENCH_PINGS ?? 2_000);
const histories = Number(process.env.BENCH_HISTORIES ?? 1_000);

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const memory = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function pingCost(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-ping-'));
  const port = await freePort();
  await writeFile(join(dir, 'server.properties'), `server-port=${port}\nserver-ip=127.0.0.1\nmax-players=20\n`);
  const sim = SimProcess.start(simSource('simcraft'), ['--version', '1.21.4'], dir);
  try {
    await sim.waitForLine(/Done \(.*\)! For help/);
    for (let i = 0; i < 100; i++) if (!(await pingPlayers('127.0.0.1', port))) throw new Error('simcraft did not answer a warm-up ping');
    const walls: number[] = [];
    const cpuBefore = process.cpuUsage();
    let failed = 0;
    for (let i = 0; i < pings; i++) {
      const started = performance.now();
      if (!(await pingPlayers('127.0.0.1', port))) failed += 1;
      walls.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    walls.sort((a, b) => a - b);
    const perPingUs = (cpu.user + cpu.system) / pings;
    console.log(`ping: ${pings} pings (${failed} unanswered), Agent CPU ${perPingUs.toFixed(0)} µs per ping `
      + `(user ${(cpu.user / pings).toFixed(0)}, system ${(cpu.system / pings).toFixed(0)}); wall p50 ${percentile(walls, 0.5).toFixed(2)} ms, p99 ${percentile(walls, 0.99).toFixed(2)} ms`);
    console.log(`ping: at one ping per server per 10 s, 1,000 running servers cost the Agent ${((perPingUs * 100) / 1e6 * 100).toFixed(2)}% of one core`);
  } finally {
    await sim.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

function historyMemory(): void {
  const before = memory();
  const kept: UsageHistory[] = [];
  const samplesPerDay = coarseSlots * finePerCoarse;
  for (let h = 0; h < histories; h++) {
    const history = new UsageHistory(10_000);
    for (let i = 0; i < samplesPerDay; i++) history.record({ atMs: i * 10_000, cpuMillis: i % 2000, memoryBytes: 2 ** 30 + i, players: i % 50, playersMax: 100 });
    kept.push(history);
  }
  const after = memory();
  const perServer = (after - before) / histories;
  console.log(`history: ${histories} servers with a full day (${samplesPerDay} samples each): ${(perServer / 1024).toFixed(1)} KiB per server measured `
    + `(the rings' arrays: ${(kept[0].bytes / 1024).toFixed(1)} KiB); 1,000 servers ≈ ${((perServer * 1000) / 2 ** 20).toFixed(1)} MiB`);
}

await pingCost();
historyMemory();
