import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerDetail, ServerWatchEvent, Team } from '../support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { EventStreamReader } from '../support/event-stream.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB } from '../support/fleet.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

type Stream = EventStreamReader<ServerWatchEvent>;
type ServerEvent = Extract<ServerWatchEvent, { event: 'server' }>;

const simcraft = { template: 'simcraft', version: '1.21.4' };
/** A server's resources carry a change's number: each PATCH sets the next, so a watcher can check the order. */
const resources = (n: number) => ({ cpuMillis: 100 + n, memoryBytes: GiB / 16 });
const cpuOf = (e: ServerEvent) => e.data.resources.cpuMillis - 100;
/** The change numbers a watcher saw, each once: a change and the Agent's report of it carry the same. */
const numbersOf = (events: ServerEvent[]) => events.map(cpuOf).filter((n, i, all) => n > 0 && n !== all[i - 1]);
const upTo = (last: number) => Array.from({ length: last }, (_, n) => n + 1);

/**
 * GET /servers/watch on two Controllers of one database (FerretDB unless MONGODB_URI is set): a
 * watcher on either sees the changes made through the other, complete and in order per server,
 * resumes with its last id or gets a snapshot, and a restarted Controller picks the feed up again.
 */
const mongo = testMongo;
if (!mongo) console.log('watch across Controllers: not run (no MongoDB or FerretDB for the tests)');
else {
  describe(`GET /servers/watch across Controllers${mongo.kind === 'ferretdb' ? ' on FerretDB' : ''}`, function () {
    this.timeout(120_000);
    const db = freshTestDatabase(mongo, 'cairn_watch_across');
    let keyDir: string;
    let a: TestController;
    let b: TestController;
    let adminA: ApiClient;
    let adminB: ApiClient;
    let agent: FakeAgent;
    let teamId: string;
    const streams: Stream[] = [];

    const start = async () => startTestController({ mongodbUri: await db.uri(), extraArgs: ['--secrets-key-file', join(keyDir, 'secrets.key')] });
    const signIn = async (t: TestController) => {
      const login = await t.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
      expect(login.status, login.text).to.equal(200);
      return t.api.withCookie(sessionCookieFrom(login));
    };
    const watch = async (client: ApiClient, lastEventId?: string) => {
      const stream = await EventStreamReader.open<ServerWatchEvent>(client, '/servers/watch', lastEventId);
      expect(stream.status).to.equal(200);
      streams.push(stream);
      await stream.next((e) => e.event === 'synced', 'synced');
      return stream;
    };
    const create = async (client: ApiClient, name: string) => {
      const res = await client.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: resources(0), nodeId: agent.nodeId });
      expect(res.status, res.text).to.equal(201);
      return res.body.id;
    };
    const change = async (client: ApiClient, id: string, n: number) => {
      const res = await client.patch(`/servers/${id}`, { resources: resources(n) });
      expect(res.status, res.text).to.equal(200);
    };
    /** The `server` events of a stream for one server, after its opening. */
    const eventsOf = (s: Stream, id: string) =>
      s.events.slice(s.events.findIndex((e) => e.event === 'synced') + 1).filter((e): e is ServerEvent => e.event === 'server' && e.data.id === id);

    before(async function () {
      keyDir = await mkdtemp(join(tmpdir(), 'cairn-watch-key-'));
      a = await start();
      ({ admin: adminA } = await setupAdmin(a));
      teamId = (await adminA.post<Team>('/teams', { name: 'across' })).body.id;
      // Enrolled before B starts, so B knows the Node too (knowing Nodes enrolled later is the leases' part).
      agent = await FakeAgent.connect(adminA, a.controller.grpcPort, 'across-node');
      b = await start();
      adminB = await signIn(b);
    });

    afterEach(() => {
      for (const s of streams.splice(0)) s.close();
    });

    after(async () => {
      // Whatever `before` got to: a failed start leaves the rest undefined.
      const started = [a as TestController | undefined, b as TestController | undefined];
      (agent as FakeAgent | undefined)?.stop();
      for (const t of started.reverse()) await t?.stop();
      await db.drop();
      await rm(keyDir, { recursive: true, force: true });
      for (const t of started) if (t) await rm(t.dataDir, { recursive: true, force: true });
    });

    it('a watcher on B sees each change made through A, in order, within 1 s', async () => {
      const onB = await watch(adminB);
      const id = await create(adminA, 'one');
      await onB.next((e) => e.event === 'server' && e.data.id === id, 'the created server on B', 1_000);
      for (let n = 1; n <= 5; n++) {
        const started = Date.now();
        await change(adminA, id, n);
        await onB.next((e) => e.event === 'server' && e.data.id === id && cpuOf(e) === n, `change ${n} on B`, 1_000);
        expect(Date.now() - started, `change ${n} reached B`).to.be.below(1_000);
      }
      const deleted = await adminA.delete(`/servers/${id}`);
      expect(deleted.status, deleted.text).to.be.oneOf([200, 202, 204]);
      await onB.next((e) => e.event === 'server-deleted' && e.data.id === id, 'the deletion on B', 5_000);
      expect(numbersOf(eventsOf(onB, id)), 'every change, never an older state after a newer one').to.deep.equal(upTo(5));
    });

    it('a burst of 200 changes from both Controllers arrives complete and in per-server order on both', async () => {
      const onA = await watch(adminA);
      const onB = await watch(adminB);
      const ids = [await create(adminA, 'burst-a1'), await create(adminA, 'burst-a2'), await create(adminA, 'burst-b1'), await create(adminA, 'burst-b2')];
      // Each server is changed through one Controller (as the holder of its Node's lease would), 50 times, all four at once.
      const writers = [adminA, adminA, adminB, adminB];
      await Promise.all(ids.map(async (id, i) => {
        for (let n = 1; n <= 50; n++) await change(writers[i], id, n);
      }));
      for (const [name, stream] of [['A', onA], ['B', onB]] as const) {
        for (const id of ids) {
          await waitFor(() => eventsOf(stream, id).some((e) => cpuOf(e) === 50), { timeoutMs: 5_000, what: `the last change of ${id} on ${name}` });
          expect(numbersOf(eventsOf(stream, id)), `every change of ${id} on ${name}, in order`).to.deep.equal(upTo(50));
        }
      }
    });

    it('a watcher on B that reconnects with its last id resumes without loss', async () => {
      const id = await create(adminA, 'resume');
      const first = await watch(adminB);
      await first.next((e) => e.event === 'server' && e.data.id === id, 'the created server');
      const lastId = first.events.at(-1)!.id;
      first.close();
      const live = await watch(adminB);
      for (let n = 1; n <= 10; n++) await change(adminA, id, n);
      // The resume below finds all ten once B has read them.
      await live.next((e) => e.event === 'server' && e.data.id === id && cpuOf(e) === 10, 'the tenth change on B');
      const resumed = await EventStreamReader.open<ServerWatchEvent>(adminB, '/servers/watch', lastId);
      streams.push(resumed);
      const synced = await resumed.next((e) => e.event === 'synced', 'synced');
      expect(synced.data, 'resumed, not a snapshot').to.include({ snapshot: false });
      expect(numbersOf(resumed.events.filter((e): e is ServerEvent => e.event === 'server' && e.data.id === id))).to.deep.equal(upTo(10));
    });

    it('B restarted picks the feed up: its watchers get a snapshot, then A\'s changes', async () => {
      const id = await create(adminA, 'restart');
      const before = await watch(adminB);
      const lastId = before.events.at(-1)!.id;
      before.close();
      b = await b.restart();
      adminB = await signIn(b);
      const after = await EventStreamReader.open<ServerWatchEvent>(adminB, '/servers/watch', lastId);
      streams.push(after);
      const synced = await after.next((e) => e.event === 'synced', 'synced');
      expect(synced.data, 'an id of the old process gets a snapshot').to.include({ snapshot: true });
      const started = Date.now();
      await change(adminA, id, 7);
      await after.next((e) => e.event === 'server' && e.data.id === id && cpuOf(e) === 7, 'A\'s change on the restarted B', 1_000);
      expect(Date.now() - started).to.be.below(1_000);
    });
  });
}
