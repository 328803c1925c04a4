/**
 * Sleeping servers: how fast a sleeping server is joinable after a login, and what sleeping frees
 * and costs. A real Controller (in this process, embedded store) and a real Agent process (from
 * source, `--status-interval-ms 1000`, private game ports, isolation off) as test/support/fleet.ts
 * starts them, and simcraft 1.21.4 servers with `sleep: {afterEmptySeconds: 10}`.
 *
 * 1. Memory: BENCH_SLEEPERS (50) servers started, each held awake by a player (a login that got
 *    Login Success, kept open); the Agent's VmRSS and the RSS of every process under its data dir
 *    (games and their supervisors) with all running; the players leave, all fall asleep, and after a
 *    few settled seconds the same again; then all are stopped (no sleepers) and the Agent's VmRSS
 *    once more. The Agent's growth per sleeping server is (asleep − stopped) / N beside
 *    (asleep − running) / N. Then BENCH_INPROCESS_SLEEPERS (1000) `Sleeper`s in this process on
 *    free ports: heap and RSS per sleeper after forced GCs (needs `--expose-gc`, as run-all gives).
 * 2. The game's own start: BENCH_WAKE_SERVERS (10) of those servers, stopped, are started one at a
 *    time (POST start): from the request to RUNNING in the API and to the first login that gets
 *    Login Success (logins every ~100 ms). Each then falls asleep with nobody on it. Then as many
 *    others all at once (when there are that many more), the load parallel wakes put on the machine.
 * 3. Wake to joinable: each of those servers, in parallel, is woken BENCH_WAKES_PER_SERVER (5)
 *    times: once GET /servers/{id} says `status.sleeping`, a login (turned away with the starting
 *    reason) wakes it; from that login to RUNNING in the API and to the first Login Success. The
 *    login closes at once, so the server falls asleep again ~10-12 s later, and the next wake begins.
 *    First BENCH_SERIAL_WAKES (5) wakes of one server alone, as the starts above ran one at a time;
 *    then the parallel ones, where up to ten games boot at once on the machine.
 * Run with `npm run bench sleeping` or `node --import tsx --expose-gc bench/sleeping.ts`.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { GiB, startFleet, waitForServer, type Fleet } from '../test/support/fleet.js';
import type { ServerDetail, ServerPage } from '../test/support/api-types.js';
import { GameClient, handshake, loginStart } from '../test/support/minecraft-client.js';
import { waitFor } from '../test/support/wait-for.js';
import { MiB, rssBytes } from './support/process-rss.js';
import { sleeperCost } from './support/sleeper-memory.js';

process.env.CAIRN_ISOLATION ??= 'off';

const sleepers = Number(process.env.BENCH_SLEEPERS ?? 50);
const wakeServers = Math.min(sleepers, Number(process.env.BENCH_WAKE_SERVERS ?? 10));
const wakesPerServer = Number(process.env.BENCH_WAKES_PER_SERVER ?? 5);
const serialWakes = Number(process.env.BENCH_SERIAL_WAKES ?? 5);
const inProcessSleepers = Number(process.env.BENCH_INPROCESS_SLEEPERS ?? 1000);
const settleMs = 5_000;
const loginSuccess = 0x02;
const loginDisconnect = 0x00;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(0)} ms, p99 ${percentile(s, 99).toFixed(0)} ms, max ${s.at(-1)!.toFixed(0)} ms (${s.length})`;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The first packet a login on `port` is answered with; undefined when the port refused or said
 * nothing within a second (a game still binding would otherwise hold a try for the client's 5 s).
 */
async function loginAnswer(port: number, name: string): Promise<{ id: number | undefined; client?: GameClient }> {
  let client: GameClient | undefined;
  try {
    client = await GameClient.connect(port);
    client.send(handshake(port, 2), loginStart(name));
    return { id: (await client.next(1_000))?.id, client };
  } catch {
    client?.destroy();
    return { id: undefined };
  }
}

/** Logs in every ~100 ms until one gets Login Success: that connection, still open (a player online). */
async function joinWhenReady(port: number, name: string, timeoutMs = 120_000): Promise<GameClient> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const tried = now();
    const { id, client } = await loginAnswer(port, name);
    if (id === loginSuccess) return client!;
    client?.destroy();
    if (now() > deadline) throw new Error(`no Login Success on port ${port} within ${timeoutMs} ms`);
    await sleep(Math.max(0, 100 - (now() - tried)));
  }
}

/** From `t0`: when the API first said RUNNING (polled every 50 ms) and when a login first got in. */
async function untilJoinable(f: Fleet, s: ServerDetail, t0: number): Promise<{ runningMs: number; joinMs: number }> {
  const running = waitForServer(f.admin, s.id, (d) => d.status.runtimeState === 'RUNNING' && !d.status.sleeping, `${s.name} RUNNING`, 120_000).then(() => now() - t0);
  const joined = joinWhenReady(s.gamePort!, 'Bench').then((client) => {
    const at = now() - t0;
    client.destroy();
    return at;
  });
  const [runningMs, joinMs] = await Promise.all([running, joined]);
  return { runningMs, joinMs };
}

/** The RSS of every process whose cwd lies under the Agent's data dir (the games and their supervisors), summed by the script each runs. */
async function gamesRss(agentDir: string): Promise<{ bytes: number; byScript: Map<string, { bytes: number; processes: number }> }> {
  const byScript = new Map<string, { bytes: number; processes: number }>();
  let bytes = 0;
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(join('/proc', pid, 'cwd')).catch(() => '');
    if (!cwd.startsWith(agentDir + '/')) continue;
    const argv = (await readFile(join('/proc', pid, 'cmdline'), 'utf8').catch(() => '')).split('\0');
    const script = basename(argv.find((a) => /\.(m?js|ts)$/.test(a)) ?? argv[0]);
    const rss = await rssBytes(Number(pid));
    const entry = byScript.get(script) ?? { bytes: 0, processes: 0 };
    byScript.set(script, { bytes: entry.bytes + rss, processes: entry.processes + 1 });
    bytes += rss;
  }
  return { bytes, byScript };
}

const scripts = (rss: Awaited<ReturnType<typeof gamesRss>>, n: number) =>
  [...rss.byScript].map(([script, r]) => `${r.processes} × ${script} ${mib(r.bytes / n)}`).join(', ') || 'none';

const listServers = async (f: Fleet) => (await f.admin.get<ServerPage>('/servers?limit=200')).body.items;

async function allServers(f: Fleet, ids: Set<string>, predicate: (s: ServerPage['items'][number]) => boolean, what: string): Promise<void> {
  let seen = '';
  await waitFor(async () => {
    const mine = (await listServers(f)).filter((s) => ids.has(s.id));
    seen = `${mine.filter(predicate).length} of ${ids.size}`;
    return mine.length === ids.size && mine.every(predicate);
  }, { timeoutMs: 180_000, intervalMs: 250, what, explain: () => seen });
}

async function createServers(f: Fleet): Promise<ServerDetail[]> {
  const created: ServerDetail[] = [];
  for (let n = 1; n <= sleepers; n++) {
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: `sleeper-${n}`, teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 8 },
      sleep: { afterEmptySeconds: 10 },
    });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
    created.push(res.body);
  }
  await allServers(f, new Set(created.map((s) => s.id)), (s) => s.phase === 'READY', 'every server READY');
  return created;
}

async function memory(f: Fleet, servers: ServerDetail[]): Promise<void> {
  const ids = new Set(servers.map((s) => s.id));
  const agentPid = f.agent.child.pid!;
  const players: GameClient[] = [];
  // Ten at a time, each held by a player as soon as it runs, so none falls asleep before all run.
  for (let i = 0; i < servers.length; i += 10) {
    const batch = servers.slice(i, i + 10);
    await Promise.all(batch.map((s) => f.admin.post(`/servers/${s.id}/start`)));
    players.push(...(await Promise.all(batch.map((s) => joinWhenReady(s.gamePort!, 'Holder')))));
  }
  await allServers(f, ids, (s) => s.runtimeState === 'RUNNING' && s.playersOnline === 1, 'every server RUNNING with its player');
  await sleep(settleMs);
  const runningAgent = await rssBytes(agentPid);
  const runningGames = await gamesRss(f.agentDir);
  const details = await Promise.all(servers.map(async (s) => (await f.admin.get<ServerDetail>(`/servers/${s.id}`)).body));
  const gameRss = await Promise.all(details.map((d) => rssBytes(d.status.pid!)));
  const usage = details.map((d) => d.status.usage.memoryBytes);

  const left = now();
  for (const p of players) p.destroy();
  await allServers(f, ids, (s) => s.sleeping === true, 'every server asleep');
  const allAsleepMs = now() - left;
  await sleep(settleMs);
  const asleepAgent = await rssBytes(agentPid);
  const asleepGames = await gamesRss(f.agentDir);

  await Promise.all(servers.map((s) => f.admin.post(`/servers/${s.id}/stop`)));
  await allServers(f, ids, (s) => s.runtimeState === 'STOPPED' && s.sleeping === undefined && s.convergence === 'CONVERGED', 'every server stopped');
  await sleep(settleMs);
  const stoppedAgent = await rssBytes(agentPid);

  const n = servers.length;
  process.stdout.write(`${n} servers, one player each, all RUNNING: Agent VmRSS ${mib(runningAgent)}; ` +
    `processes under its data dir ${mib(runningGames.bytes)}, ${mib(runningGames.bytes / n)} per server (${scripts(runningGames, n)})\n`);
  process.stdout.write(`one running simcraft: VmRSS of status.pid median ${mib(median(gameRss))} (min ${mib(Math.min(...gameRss))}, max ${mib(Math.max(...gameRss))}); ` +
    `status.usage.memoryBytes median ${mib(median(usage))}\n`);
  process.stdout.write(`players gone → all ${n} asleep in ${(allAsleepMs / 1000).toFixed(1)} s; ${settleMs / 1000} s later: Agent VmRSS ${mib(asleepAgent)}; ` +
    `processes under its data dir ${mib(asleepGames.bytes)} (${scripts(asleepGames, n)})\n`);
  process.stdout.write(`all ${n} stopped (no sleepers), ${settleMs / 1000} s later: Agent VmRSS ${mib(stoppedAgent)}\n`);
  process.stdout.write(`Agent growth per sleeping server: vs stopped ${kib((asleepAgent - stoppedAgent) / n)}, vs running ${kib((asleepAgent - runningAgent) / n)}; ` +
    `freed by sleeping per server ${mib((runningGames.bytes - asleepGames.bytes) / n)}\n`);

  const cost = await sleeperCost(inProcessSleepers);
  process.stdout.write(`${inProcessSleepers} Sleepers in this process${cost.gc ? ', after forced GCs' : ' (no --expose-gc: no forced GC, heap figure noisy)'}: ` +
    `heap ${kib(cost.heapPerSleeper)}, RSS ${kib(cost.rssPerSleeper)} per sleeper\n`);
}

/** POST start of stopped servers, one at a time or all at once: from each request to RUNNING and to Login Success. */
async function gameStarts(f: Fleet, servers: ServerDetail[], together: boolean): Promise<void> {
  const startOne = async (s: ServerDetail) => {
    const t0 = now();
    const res = await f.admin.post(`/servers/${s.id}/start`);
    if (res.status !== 202) throw new Error(`start: ${res.status} ${res.text}`);
    return untilJoinable(f, s, t0);
  };
  const samples: { runningMs: number; joinMs: number }[] = [];
  if (together) samples.push(...(await Promise.all(servers.map(startOne))));
  else for (const s of servers) samples.push(await startOne(s));
  process.stdout.write(`game's own start (POST start of a stopped server, ${together ? `${servers.length} at once` : 'one at a time'}): ` +
    `→ RUNNING ${spread(samples.map((x) => x.runningMs))}; → Login Success ${spread(samples.map((x) => x.joinMs))}\n`);
}

async function wakes(f: Fleet, servers: ServerDetail[], perServer: number): Promise<void> {
  const samples: { runningMs: number; joinMs: number }[] = [];
  const asleep = (s: ServerDetail) => waitFor(async () => (await f.admin.get<ServerDetail>(`/servers/${s.id}`)).body.status.sleeping === true,
    { timeoutMs: 60_000, intervalMs: 250, what: `${s.name} asleep` });
  const started = now();
  await Promise.all(servers.map(async (s) => {
    for (let w = 0; w < perServer; w++) {
      await asleep(s);
      const t0 = now();
      const first = await loginAnswer(s.gamePort!, 'Waker');
      first.client?.destroy();
      if (first.id !== loginDisconnect) throw new Error(`${s.name}: the first login on a sleeping server got ${first.id}, not the starting disconnect`);
      samples.push(await untilJoinable(f, s, t0));
    }
  }));
  process.stdout.write(`${samples.length} wakes (${servers.length === 1 ? 'one server, one at a time' : `${servers.length} servers in parallel`}, ${((now() - started) / 1000).toFixed(0)} s): ` +
    `login → RUNNING ${spread(samples.map((x) => x.runningMs))}; login → Login Success ${spread(samples.map((x) => x.joinMs))}\n`);
}

async function main(): Promise<void> {
  const begun = now();
  const f = await startFleet({ agentArgs: ['--status-interval-ms', '1000'] });
  // An interrupt or a stray rejection skips `finally`: the Agent, its games and the temp dirs go all the same.
  const abort = (why: unknown) => {
    process.stderr.write(`bench aborted: ${why instanceof Error ? why.stack : String(why)}\n`);
    void f.dispose().finally(() => process.exit(1));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, abort);
  process.once('unhandledRejection', abort);
  try {
    const servers = await createServers(f);
    await memory(f, servers);
    const woken = servers.slice(0, wakeServers);
    await gameStarts(f, woken, false);
    const others = servers.slice(wakeServers, 2 * wakeServers);
    if (others.length === wakeServers) await gameStarts(f, others, true);
    await wakes(f, woken.slice(0, 1), serialWakes);
    await wakes(f, woken, wakesPerServer);
    process.stdout.write(`bench done in ${((now() - begun) / 1000).toFixed(0)} s\n`);
  } finally {
    await f.dispose();
  }
}

await main();
