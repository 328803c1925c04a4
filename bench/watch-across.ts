/**
 * GET /servers/watch across two Controllers on one database (FerretDB built by `.ci/run`, or the
 * MongoDB `MONGODB_URI` names), both in this process with a fake Node enrolled on the first:
 * - one at a time: BENCH_WATCH_CHANGES (default 300) PATCHes, half through each Controller, each
 *   timed from just before its request to its arrival on a watcher of the OTHER Controller;
 * - a burst: BENCH_WATCH_BURST (default 200) PATCHes at once, half through each, timed the same way.
 * p50/p99/max of each, the PATCH's own answer time, and the time from its answer (the write acknowledged)
 * to the other Controller's watcher. Run with `npm run bench watch-across`.
 */
import '../test/support/test-env.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerDetail, ServerWatchEvent, Team } from '../test/support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../test/support/controller.js';
import { EventStreamReader } from '../test/support/event-stream.js';
import { FakeAgent } from '../test/support/fake-agent.js';
import { GiB } from '../test/support/fleet.js';
import { sessionCookieFrom, type ApiClient } from '../test/support/http.js';
import { freshTestDatabase, testMongo } from '../test/support/test-mongodb.js';

const sequential = Number(process.env.BENCH_WATCH_CHANGES ?? 300);
const burst = Number(process.env.BENCH_WATCH_BURST ?? 200);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const summary = (ms: number[]) => {
  const sorted = [...ms].sort((x, y) => x - y);
  return `p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms (${sorted.length})`;
};

/** Each change sets a server's cpuMillis to a number of its own: its arrival is told by that number. */
class Arrivals {
  private readonly waiting = new Map<string, () => void>();
  private seen = 0;

  constructor(private readonly stream: EventStreamReader<ServerWatchEvent>) {}

  /** Resolves when the watcher has the change setting `cpuMillis` on `serverId`. */
  of(serverId: string, cpuMillis: number): Promise<void> {
    return new Promise((resolve) => this.waiting.set(`${serverId}:${cpuMillis}`, resolve));
  }

  /** Looks through what arrived since the last look (the reader keeps every event). */
  look(): void {
    const { events } = this.stream;
    for (; this.seen < events.length; this.seen++) {
      const e = events[this.seen];
      if (e.event !== 'server') continue;
      const key = `${e.data.id}:${e.data.resources.cpuMillis}`;
      this.waiting.get(key)?.();
      this.waiting.delete(key);
    }
  }
}

async function main(): Promise<void> {
  if (!testMongo) throw new Error('no MongoDB-compatible server: set MONGODB_URI or build FerretDB (.ci/run)');
  const db = freshTestDatabase(testMongo, 'cairn_bench_watch');
  const keyDir = await mkdtemp(join(tmpdir(), 'cairn-bench-watch-'));
  const start = async () => startTestController({ mongodbUri: await db.uri(), extraArgs: ['--secrets-key-file', join(keyDir, 'secrets.key')] });
  const controllers: TestController[] = [];
  try {
    const a = await start();
    controllers.push(a);
    const { admin: adminA } = await setupAdmin(a);
    const teamId = (await adminA.post<Team>('/teams', { name: 'bench' })).body.id;
    const agent = await FakeAgent.connect(adminA, a.controller.grpcPort, 'bench-node');
    const b = await start();
    controllers.push(b);
    const login = await b.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    const adminB = b.api.withCookie(sessionCookieFrom(login));
    const servers: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await adminA.post<ServerDetail>('/servers', { name: `bench-${i}`, teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
      servers.push(res.body.id);
    }
    const watchers = await Promise.all([adminA, adminB].map(async (client) => {
      const stream = await EventStreamReader.open<ServerWatchEvent>(client, '/servers/watch');
      return new Arrivals(stream);
    }));
    const looking = setInterval(() => watchers.forEach((w) => w.look()), 1);
    let cpu = 100;
    /** One change through `through` (0: A, 1: B), timed to its arrival on the other's watcher. */
    const change = async (through: number, serverId: string, answers: number[], afterAnswer: number[]) => {
      const value = ++cpu;
      const client: ApiClient = through === 0 ? adminA : adminB;
      const arrived = watchers[1 - through].of(serverId, value);
      const started = Date.now();
      const res = await client.patch(`/servers/${serverId}`, { resources: { cpuMillis: value, memoryBytes: GiB / 16 } });
      if (res.status !== 200) throw new Error(`PATCH failed: ${res.status} ${res.text}`);
      const answered = Date.now();
      answers.push(answered - started);
      await arrived;
      afterAnswer.push(Date.now() - answered);
      return Date.now() - started;
    };
    const oneAtATime: number[] = [];
    const oneAtATimeAnswers: number[] = [];
    const oneAtATimeAfter: number[] = [];
    // Servers 0-3 are changed through A, 4-7 through B, as the holders of their Nodes' leases would.
    const serverOf = (i: number) => servers[(i % 2) * 4 + (Math.floor(i / 2) % 4)];
    for (let i = 0; i < sequential; i++) oneAtATime.push(await change(i % 2, serverOf(i), oneAtATimeAnswers, oneAtATimeAfter));
    const burstAnswers: number[] = [];
    const burstAfter: number[] = [];
    const inBurst = await Promise.all(Array.from({ length: burst }, (_, i) => change(i % 2, serverOf(i), burstAnswers, burstAfter)));
    clearInterval(looking);
    agent.stop();
    console.log(`store: ${testMongo.kind}; two Controllers and this bench in one process`);
    for (const [what, total, answers, after] of [['one at a time', oneAtATime, oneAtATimeAnswers, oneAtATimeAfter], [`burst of ${burst}`, inBurst, burstAnswers, burstAfter]] as const) {
      console.log(`${what}: request to the other Controller's watcher ${summary(total)}; PATCH answered ${summary(answers)}; answer to the other's watcher ${summary(after)}`);
    }
  } finally {
    for (const t of controllers.reverse()) await t.stop();
    await db.drop();
    await rm(keyDir, { recursive: true, force: true });
    for (const t of controllers) await rm(t.dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
