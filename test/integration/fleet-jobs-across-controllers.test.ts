import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { fleetJobNames } from '../../src/controller/domain/fleet-jobs.js';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import type { ScheduleRunDoc } from '../../src/controller/store/records.js';
import type { Schedule, ServerDetail, Team, Webhook } from '../support/api-types.js';
import { TestClock } from '../support/clock.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

type ClusterBody = Static<typeof Cluster>;

/** A test clock that keeps when each of its timers is due, so a test sees a schedule armed before it moves the clock there. */
class WatchedClock extends TestClock {
  readonly dues: number[] = [];

  override setTimeout(fn: () => void, ms: number): number {
    this.dues.push(this.now().getTime() + ms);
    return super.setTimeout(fn, ms);
  }
}
const simcraft = { template: 'simcraft', version: '1.21.4' };
/** The default lease timing's expiry (15 s) and one renewal tick (5 s), with room for a loaded machine. */
const takeOverWithinMs = 30_000;

/**
 * The fleet-wide jobs on two Controllers of one database (FerretDB unless MONGODB_URI is set):
 * each job runs on exactly one, the first up handing half of them over to the second; a schedule's
 * minute runs once; a run under way on a live Controller stays RUNNING whoever sweeps; a webhook
 * delivery stored by the other is sent by the holder, once; and when the holder stops, the other
 * takes every job, sweeps, and its schedules fire.
 */
const mongo = testMongo;
if (!mongo) console.log('fleet-wide jobs across Controllers: not run (no MongoDB or FerretDB for the tests)');
else {
  describe(`fleet-wide jobs across Controllers${mongo.kind === 'ferretdb' ? ' on FerretDB' : ''}`, function () {
    this.timeout(120_000);
    const db = freshTestDatabase(mongo, 'cairn_fleet_jobs');
    // One clock for both: moving it to a minute fires the schedule timers of whichever Controller armed them.
    const clock = new WatchedClock();
    let keyDir: string;
    let a: TestController;
    let b: TestController;
    let adminA: ApiClient;
    let adminB: ApiClient;
    let agent: FakeAgent;
    let serverId: string;
    const commands: string[] = [];

    const start = async () => startTestController({ mongodbUri: await db.uri(), clock, extraArgs: ['--secrets-key-file', join(keyDir, 'secrets.key'), '--allow-private-webhooks'] });
    const clusterOn = async (client: ApiClient) => {
      const res = await client.get<ClusterBody>('/cluster');
      expect(res.status, res.text).to.equal(200);
      return res.body;
    };
    const jobsOf = (cluster: ClusterBody, t: TestController) => cluster.controllers.find((c) => c.httpAddress === `127.0.0.1:${t.controller.httpPort}`)?.jobs ?? [];
    const runsAt = async (scheduleId: string, minute: Date) => (await a.controller.repos.scheduleRuns.find({ scheduleId })).filter((r) => r.scheduledFor === minute.toISOString());
    /**
     * Waits for a timer armed for a whole minute within the next two (a schedule's, armed by whichever
     * Controller runs the schedules) among those set since `mark`, then moves the shared clock there.
     * Such a timer may be due a few milliseconds past its minute: it is armed from two readings of the
     * clock, and the real time under the test clock can tick between them.
     */
    const toArmedMinute = async (mark: number) => {
      const due = await waitFor(() => {
        const now = clock.now().getTime();
        return clock.dues.slice(mark).filter((at) => at % 60_000 < 50 && at > now - 60_000 && at <= now + 120_000).sort((x, y) => x - y).at(0);
      }, { timeoutMs: 30_000, what: 'a schedule armed for its next minute' });
      clock.advance(Math.max(0, due - clock.now().getTime()));
      return new Date(due - (due % 60_000));
    };

    before(async () => {
      keyDir = await mkdtemp(join(tmpdir(), 'cairn-fleet-jobs-key-'));
      a = await start();
      ({ admin: adminA } = await setupAdmin(a));
      const teamId = (await adminA.post<Team>('/teams', { name: 'jobs' })).body.id;
      agent = await FakeAgent.connect(adminA, a.controller.grpcPort, 'jobs-node');
      agent.client.handle('consoleCommand', ({ command }) => {
        commands.push(command);
        return Promise.resolve({});
      });
      const created = await adminA.post<ServerDetail>('/servers', { name: 'jobs', teamId, software: simcraft, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId });
      expect(created.status, created.text).to.equal(201);
      serverId = created.body.id;
      await waitForServer(adminA, serverId, (s) => s.phase === 'READY', 'READY');
      b = await start();
      const login = await b.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
      expect(login.status, login.text).to.equal(200);
      adminB = b.api.withCookie(sessionCookieFrom(login));
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

    it('runs each job on exactly one Controller, as GET /cluster says on both: A, up first, hands half of them over to B', async () => {
      // A was alone at its first lease round and took every job; B joined, and A hands one back per round until each runs three.
      const handedOverWithinMs = 20_000;
      await waitFor(() => a.controller.services.fleetJobs.held().length === 3 && b.controller.services.fleetJobs.held().length === 3, { timeoutMs: handedOverWithinMs, what: 'three jobs each' });
      const onA = a.controller.services.fleetJobs.held();
      const onB = b.controller.services.fleetJobs.held();
      expect([...onA, ...onB].sort(), 'every job, each once').to.deep.equal([...fleetJobNames].sort());
      // The first in order are handed over: A keeps the schedules and the webhook deliveries, which the tests below rely on.
      expect(onA).to.include.members(['task-schedules', 'webhook-deliveries']);
      for (const client of [adminA, adminB]) {
        const cluster = await clusterOn(client);
        expect(jobsOf(cluster, a), 'A\'s jobs').to.deep.equal([...onA].sort());
        expect(jobsOf(cluster, b), 'B\'s jobs').to.deep.equal([...onB].sort());
      }
    });

    it('runs a schedule\'s minute once across both, on the Controller that holds the schedules', async () => {
      const mark = clock.dues.length;
      const created = await adminB.post<Schedule>(`/servers/${serverId}/schedules`, { name: 'tick', cron: '* * * * *', tasks: [{ action: 'command', command: 'say tick' }] });
      expect(created.status, created.text).to.equal(201);
      const minute = await toArmedMinute(mark);
      const [run] = await waitFor(async () => {
        const runs = await runsAt(created.body.id, minute);
        return runs.some((r) => r.result !== 'RUNNING') ? runs : undefined;
      }, { what: 'the minute\'s run' });
      expect(await runsAt(created.body.id, minute), 'one run of the minute').to.have.length(1);
      const holder = [a, b].find((t) => t.controller.services.fleetJobs.held().includes('task-schedules'))!;
      expect(run.runBy, 'carried out by the Controller that holds the schedules').to.equal(holder.controller.services.cluster.controllerId);
      expect(run.result, JSON.stringify(run)).to.equal('SUCCEEDED');
      expect(commands.filter((c) => c === 'say tick')).to.have.length(1);
      expect((await adminA.delete(`/schedules/${created.body.id}`)).status).to.equal(204);
    });

    it('sends a webhook delivery stored through the Controller that does not send, once, from the one that does', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const hook = await adminA.post<Webhook>('/webhooks', { name: 'ops', url: receiver.url, events: ['server.crashed'] });
        expect(hook.status, hook.text).to.equal(201);
        const sent = await adminB.post<{ id: string }>(`/webhooks/${hook.body.id}/test`);
        expect(sent.status, sent.text).to.equal(202);
        await waitFor(() => receiver.received.length > 0, { timeoutMs: 10_000, what: 'the delivery' });
        expect(receiver.received[0].headers['cairn-delivery']).to.equal(sent.body.id);
        // Another poll of the sender's, and B's own outbox: still one.
        await waitFor(async () => (await a.controller.repos.webhookDeliveries.findById(sent.body.id))?.state === 'DELIVERED', { what: 'the delivery recorded' });
        expect(receiver.received).to.have.length(1);
        expect((await adminA.delete(`/webhooks/${hook.body.id}`)).status).to.equal(204);
      } finally {
        await receiver.close();
      }
    });

    let underWay: ScheduleRunDoc;
    it('leaves a run under way on a live Controller RUNNING when another starts, and ends one of a Controller that stopped', async () => {
      const created = await adminA.post<Schedule>(`/servers/${serverId}/schedules`, { name: 'long', cron: '0 4 * * *', tasks: [{ action: 'command', command: 'say long' }] });
      expect(created.status, created.text).to.equal(201);
      // As A records a run it carries out: RUNNING until it ends.
      underWay = {
        _id: randomUUID(), scheduleId: created.body.id, serverId, claimKey: `${created.body.id}@now@${randomUUID()}`,
        scheduledFor: clock.now().toISOString(), result: 'RUNNING', startedAt: clock.now().toISOString(), tasks: [], runBy: a.controller.services.cluster.controllerId,
      };
      await a.controller.repos.scheduleRuns.insert(underWay);
      // And one B carries out (a run asked for now through B), older than a sweep leaves alone: B's restart cuts it off.
      const cutOff: ScheduleRunDoc = {
        ...underWay, _id: randomUUID(), claimKey: `${created.body.id}@now@${randomUUID()}`, startedAt: new Date(clock.now().getTime() - 60_000).toISOString(), runBy: b.controller.services.cluster.controllerId,
      };
      await a.controller.repos.scheduleRuns.insert(cutOff);
      b = await b.restart();
      // B's jobs went back to A at its stop; B, back, is handed its share again.
      await waitFor(async () => jobsOf(await clusterOn(adminA), b).length === 3 && (await clusterOn(adminA)).controllers.length === 2, { timeoutMs: 20_000, what: 'B back, running three jobs' });
      expect((await a.controller.repos.scheduleRuns.findById(underWay._id))?.result).to.equal('RUNNING');
      // A held the schedules all along (no start's sweep): its periodic sweep (every 20 s) ends B's run.
      expect(a.controller.services.fleetJobs.held()).to.include('task-schedules');
      const swept = await waitFor(async () => {
        const run = await a.controller.repos.scheduleRuns.findById(cutOff._id);
        return run?.result === 'RUNNING' ? undefined : run;
      }, { timeoutMs: 40_000, what: 'the run B left swept by A' });
      expect(swept).to.deep.include({ result: 'FAILED', reason: 'interrupted' });
      expect((await a.controller.repos.scheduleRuns.findById(underWay._id))?.result, 'A\'s own run, under way').to.equal('RUNNING');
    });

    it('when the holder stops, the other takes every job within the lease expiry, sweeps what it left, and its schedules fire', async () => {
      const schedule = await adminA.post<Schedule>(`/servers/${serverId}/schedules`, { name: 'after', cron: '* * * * *', tasks: [{ action: 'command', command: 'say after' }] });
      expect(schedule.status, schedule.text).to.equal(201);
      const repos = b.controller.repos;
      const stoppedAt = Date.now();
      await a.stop();
      const mark = clock.dues.length;
      const signIn = await b.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
      adminB = b.api.withCookie(sessionCookieFrom(signIn));
      await waitFor(() => b.controller.services.fleetJobs.held().length === fleetJobNames.length, { timeoutMs: takeOverWithinMs, what: 'B running every job' });
      expect(Date.now() - stoppedAt).to.be.below(takeOverWithinMs);
      const cluster = await clusterOn(adminB);
      expect(cluster.controllers).to.have.length(1);
      expect(jobsOf(cluster, b)).to.deep.equal([...fleetJobNames].sort());
      // The sweep ran on B when it took the schedules: A's run left RUNNING ends interrupted (its reads of FerretDB take seconds on a busy machine).
      const swept = await waitFor(async () => {
        const run = await repos.scheduleRuns.findById(underWay._id);
        return run?.result === 'RUNNING' ? undefined : run;
      }, { timeoutMs: 20_000, what: 'the run A left swept' });
      expect(swept).to.deep.include({ result: 'FAILED', reason: 'interrupted' });
      const minute = await toArmedMinute(mark);
      const fired = await waitFor(async () => {
        const runs = (await repos.scheduleRuns.find({ scheduleId: schedule.body.id })).filter((r) => r.scheduledFor === minute.toISOString());
        return runs.length > 0 ? runs : undefined;
      }, { what: 'the schedule fired on B' });
      expect(fired).to.have.length(1);
      expect(fired[0].runBy).to.equal(b.controller.services.cluster.controllerId);
    });
  });
}
