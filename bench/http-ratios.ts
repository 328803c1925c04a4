/**
 * HTTP ratios: the built Controller against a bare Koa process serving the very same bodies.
 * The Controller runs in its own process on the embedded store, with one fake Node (the real link
 * client in this process) holding 50 servers created through the API; the bare Koa process (also
 * its own) answers the bodies fetched from the Controller first. autocannon (32 connections) loads
 * each in turn, alternately, after a warm-up, and the ratio is Cairn's req/s over bare Koa's.
 * Run with `npm run bench http-ratios`. Knobs: BENCH_HTTP_SECONDS (8 per run), BENCH_WARMUP_SECONDS (2),
 * BENCH_ROUNDS (2), BENCH_ONLY (`/me` or `/servers`: one endpoint), BENCH_CPU_PROF_DIR (V8 CPU profiles of both processes, in cairn/ and bare/ there),
 * BENCH_STORE=mongodb (the Controller on a fresh database of the test suite's FerretDB, or of MONGODB_URI's server).
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { FakeAgent } from '../test/support/fake-agent.js';
import type { Node, ServerPage, Team } from '../test/support/api-types.js';
import { ApiClient, sessionCookieFrom } from '../test/support/http.js';
import { freshTestDatabase, testMongo } from '../test/support/test-mongodb.js';
import { startControllerProcess } from './support/controller-process.js';

const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 8);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const profileDir = process.env.BENCH_CPU_PROF_DIR;
const profileArgs = (who: string) => (profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, who)] : []);
const serverCount = 50;
const allEndpoints = [
  { title: 'GET /me', path: '/api/v1/me' },
  { title: 'GET /servers?limit=50', path: `/api/v1/servers?limit=${serverCount}` },
];
const endpoints = allEndpoints.filter((e) => !process.env.BENCH_ONLY || e.title.includes(process.env.BENCH_ONLY));

/** The bare process: Koa and one middleware answering each path with its body, as a handler returning an object would. */
async function bare(bodiesFile: string): Promise<void> {
  const bodies = new Map(Object.entries(JSON.parse(await readFile(bodiesFile, 'utf8')) as Record<string, unknown>));
  const app = new Koa();
  app.use((ctx) => {
    const body = bodies.get(ctx.url);
    if (body === undefined) return;
    ctx.body = body;
  });
  const server = app.listen(0, '127.0.0.1');
  // Exiting (rather than dying of the signal) lets --cpu-prof write its profile.
  process.once('SIGTERM', () => process.exit(0));
  await once(server, 'listening');
  process.stdout.write(JSON.stringify({ httpPort: (server.address() as { port: number }).port }) + '\n');
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One load run: requests a second, and the server process's CPU time per request (steadier than the rate on a shared machine). */
async function run(url: string, pid: number, cookie: string, duration: number): Promise<{ rate: number; cpuMicros: number }> {
  const cpuBefore = await cpuSeconds(pid);
  const result = await autocannon({ url, connections: 32, duration, headers: { cookie } });
  const cpu = (await cpuSeconds(pid)) - cpuBefore;
  if (result.non2xx !== 0 || result.errors !== 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rate: result.requests.total / duration, cpuMicros: (cpu * 1e6) / result.requests.total };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-ratios-'));
  const onMongo = process.env.BENCH_STORE === 'mongodb';
  if (onMongo && !testMongo) throw new Error('BENCH_STORE=mongodb needs MONGODB_URI or FerretDB built (.ci/run)');
  const database = onMongo ? freshTestDatabase(testMongo!, 'cairn_bench') : undefined;
  const { child, httpPort, grpcPort } = await startControllerProcess(join(dir, 'controller'), profileArgs('cairn'), await database?.uri());
  console.log(`the Controller's store: ${onMongo ? 'MongoDB adapter (' + (process.env.MONGODB_URI ? 'MONGODB_URI' : 'FerretDB') + ')' : 'embedded'}`);
  let bareChild: ChildProcess | undefined;
  let agent: FakeAgent | undefined;
  try {
    const anonymous = new ApiClient(`http://127.0.0.1:${httpPort}`);
    const setupCode = (await readFile(join(dir, 'controller', 'setup-code'), 'utf8')).trim();
    const setup = await anonymous.post('/setup', {
      setupCode, username: 'bench', email: 'bench@example.com', displayName: 'Bench', password: 'bench-password-1',
      network: { name: 'b', description: '', address: 'localhost', port: 25565 },
    });
    const cookie = sessionCookieFrom(setup);
    const admin = anonymous.withCookie(cookie);
    const teamId = (await admin.post<Team>('/teams', { name: 'bench' })).body.id;
    agent = await FakeAgent.connect(admin, grpcPort, 'bench-node');
    const nodeId = agent.nodeId;
    await until('the Node to be HEALTHY', async () => (await admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY');
    for (let i = 0; i < serverCount; i++) {
      const res = await admin.post('/servers', { name: `s${i}`, teamId, nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes: 2 ** 20 } });
      if (res.status !== 201) throw new Error(`server create: ${res.status} ${res.text}`);
    }
    await until('every server READY', async () => (await admin.get<ServerPage>(`/servers?limit=${serverCount}`)).body.items.every((s) => s.phase === 'READY'));

    const bodies: Record<string, unknown> = {};
    for (const { path } of allEndpoints) {
      const res = await fetch(`http://127.0.0.1:${httpPort}${path}`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      bodies[path] = await res.json();
    }
    if ((bodies[allEndpoints[1].path] as ServerPage).items.length !== serverCount) throw new Error(`the list does not hold ${serverCount} servers`);
    await writeFile(join(dir, 'bodies.json'), JSON.stringify(bodies));
    bareChild = spawn(process.execPath, [...profileArgs('bare'), '--import', 'tsx', fileURLToPath(import.meta.url), 'bare', join(dir, 'bodies.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: bareChild.stdout! }), 'line')) as [string];
    const barePort = (JSON.parse(line) as { httpPort: number }).httpPort;

    const targets = [{ name: 'cairn', port: httpPort, pid: child.pid! }, { name: 'bare', port: barePort, pid: bareChild.pid! }];
    const runs = new Map<string, { rate: number; cpuMicros: number }[]>();
    console.log(`autocannon 32 connections, ${seconds} s a run after ${warmupSeconds} s of warm-up, ${rounds} rounds alternating Cairn and bare Koa`);
    for (let round = 0; round < rounds; round++) {
      for (const { path } of endpoints) {
        // Alternate who goes first, so a drift in the machine's load falls on both alike.
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          const url = `http://127.0.0.1:${target.port}${path}`;
          if (round === 0) await run(url, target.pid, cookie, warmupSeconds);
          const key = `${target.name} ${path}`;
          runs.set(key, [...(runs.get(key) ?? []), await run(url, target.pid, cookie, seconds)]);
        }
      }
    }
    const mean = (key: string, pick: (r: { rate: number; cpuMicros: number }) => number) => {
      const xs = runs.get(key)!.map(pick);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    for (const { title, path } of endpoints) {
      const [cairn, bareRate] = [mean(`cairn ${path}`, (r) => r.rate), mean(`bare ${path}`, (r) => r.rate)];
      const [cairnCpu, bareCpu] = [mean(`cairn ${path}`, (r) => r.cpuMicros), mean(`bare ${path}`, (r) => r.cpuMicros)];
      console.log(`${title}: cairn ${Math.round(cairn)} req/s, bare ${Math.round(bareRate)} req/s, ratio ${(cairn / bareRate).toFixed(2)}` +
        `  (CPU per request: cairn ${Math.round(cairnCpu)} µs, bare ${Math.round(bareCpu)} µs, ratio ${(bareCpu / cairnCpu).toFixed(2)})`);
    }
  } finally {
    agent?.stop();
    bareChild?.kill('SIGTERM');
    child.kill('SIGTERM');
    await once(child, 'exit');
    if (bareChild && bareChild.exitCode === null) await once(bareChild, 'exit');
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, file] = process.argv.slice(2);
(mode === 'bare' ? bare(file) : main()).then(() => mode === 'bare' || process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
