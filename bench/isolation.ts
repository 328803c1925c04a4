/**
 * Containment benchmark: what the box costs a start, and what it costs in memory per server.
 * The real Agent code in this process (as root; the probe decides what the box holds here): one
 * ProcessRuntime and the Agent's GameBoxes. A tiny game (`sh` printing `ready`, then reading
 * stdin) is started BENCH_ROUNDS times (default 20) unboxed and as many times boxed, alternating,
 * and each start is timed from the call (boxing included: uid, ownership, cgroup, view) until its
 * `ready` line reaches the Agent. Then BENCH_SERVERS (default 10) boxed games run at once and the
 * resident memory of each box's own processes (bubblewrap's monitor and its pid namespace's init)
 * is read from /proc. Run with `npm run bench isolation`.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boxesForAgent } from '../src/agent/isolation/boxes-for-agent.js';
import { GameBoxes } from '../src/agent/isolation/game-boxes.js';
import { defaultGameUids } from '../src/agent/isolation/game-uids.js';
import { serverRoot } from '../src/agent/reconciler/server-paths.js';
import { ProcessRuntime } from '../src/agent/runtime/process-runtime.js';
import { silentLogger } from '../src/shared/logger.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
const servers = Number(process.env.BENCH_SERVERS ?? 10);
const limits = { cpuMillis: 1000, memoryBytes: 256 * 2 ** 20 };

const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-isolation-'));
const runtime = new ProcessRuntime({ dataDir });
const boxed = await boxesForAgent({ dataDir, isolation: 'auto', gameUids: defaultGameUids, javas: [], bindAddress: '127.0.0.1', gamePorts: { first: 47000, last: 47999 }, gameEgressAllow: [] }, silentLogger);
const plain = GameBoxes.off(silentLogger);
if (boxed.plan.missing.length > 0) console.log(`this host boxes only part: ${boxed.plan.missing.join('; ')}`);
console.log(`box here: ${JSON.stringify(boxed.plan.support)}${boxed.plan.cgroups ? `, cgroup v${boxed.plan.cgroups.version}` : ''}`);

const launch = (root: string) => ({
  command: '/bin/sh', args: ['-c', 'echo ready; exec cat'], cwd: root, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: root },
  stopCommand: null, stopTimeoutMs: 2000, termTimeoutMs: 2000,
});

let counter = 0;
async function startOnce(boxes: GameBoxes): Promise<{ ms: number; serverId: string }> {
  const serverId = `bench-${counter++}`;
  const root = serverRoot(dataDir, serverId);
  await mkdir(root, { recursive: true });
  const began = performance.now();
  const { launch: spec, box } = await boxes.box(serverId, root, limits, [], launch(root));
  await runtime.start(serverId, spec, box);
  await new Promise<void>((resolve, reject) => {
    let detach: (() => void) | undefined;
    let seen = false;
    runtime.attach(serverId, { tail: 10 }, (line) => {
      if (line.text !== 'ready' || seen) return;
      seen = true;
      detach?.();
      resolve();
    }).then((d) => (seen ? d() : (detach = d)), reject);
  });
  return { ms: performance.now() - began, serverId };
}

async function stopAndForget(boxes: GameBoxes, serverId: string): Promise<void> {
  await runtime.stop(serverId, { timeoutMs: 2000 });
  await boxes.forget(serverId);
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const fmt = (values: number[]) => `median ${quantile(values, 0.5).toFixed(1)} ms, p90 ${quantile(values, 0.9).toFixed(1)} ms`;

try {
  const times = { plain: [] as number[], boxed: [] as number[] };
  await stopAndForget(boxed, (await startOnce(boxed)).serverId);
  for (let i = 0; i < rounds; i++) {
    for (const [name, boxes] of (i % 2 === 0 ? [['plain', plain], ['boxed', boxed]] : [['boxed', boxed], ['plain', plain]]) as [keyof typeof times, GameBoxes][]) {
      const { ms, serverId } = await startOnce(boxes);
      times[name].push(ms);
      await stopAndForget(boxes, serverId);
    }
  }
  console.log(`start to ready, unboxed: ${fmt(times.plain)}`);
  console.log(`start to ready, boxed:   ${fmt(times.boxed)}`);
  console.log(`the box adds: median ${(quantile(times.boxed, 0.5) - quantile(times.plain, 0.5)).toFixed(1)} ms per start`);

  const running = await Promise.all(Array.from({ length: servers }, () => startOnce(boxed)));
  let boxKiB = 0;
  for (const { serverId } of running) {
    const status = await runtime.status(serverId);
    if (status.state !== 'running') continue;
    for (const pid of [status.gamePid, Number((await readFile(`/proc/${status.gamePid}/task/${status.gamePid}/children`, 'utf8')).trim().split(' ')[0])]) {
      boxKiB += Number(/^VmRSS:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    }
  }
  console.log(`memory of the box itself (bubblewrap's monitor and init): ${(boxKiB / servers / 1024).toFixed(2)} MiB per server, ${servers} servers`);
  for (const { serverId } of running) await stopAndForget(boxed, serverId);
} finally {
  runtime.close();
  await rm(dataDir, { recursive: true, force: true });
}
