import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { EventStreamReader } from '../support/event-stream.js';
import { openSse } from '../support/sse.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { RolePage, ServerDetail, ServerListItem, ServerPage, ServerWatchEvent, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };
const snapshotId = /^([0-9a-f]+)-(\d+)\.(\d+)$/;
const changeId = /^([0-9a-f]+)-(\d+)$/;

type Stream = EventStreamReader<ServerWatchEvent>;

/** The events of a stream up to and including its first `synced`. */
const opening = (s: Stream) => s.events.slice(0, s.events.findIndex((e) => e.event === 'synced') + 1);
/** An id's place in the stream: `seq`, then the snapshot item's number (0 for a change or `synced`). */
const place = (id: string): [number, number] => {
  const item = snapshotId.exec(id);
  return item ? [Number(item[2]), Number(item[3])] : [Number(changeId.exec(id)![2]), 0];
};
const seqOf = (id: string) => place(id)[0];
const increasing = (ids: string[]) => ids.every((id, i) => {
  if (i === 0) return true;
  const [[s0, n0], [s1, n1]] = [place(ids[i - 1]), place(id)];
  return s0 < s1 || (s0 === s1 && n0 < n1);
});
/** A stream's change events (not snapshot items, not `synced`) after the place `mark`. */
const changesAfter = (s: Stream, mark: string) => s.events.filter((e) => e.event !== 'synced' && !snapshotId.test(e.id) && seqOf(e.id) > seqOf(mark));

describe('GET /servers/watch: snapshot, event ids and resume with Last-Event-ID', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let viewer: ApiClient;
  let agent: FakeAgent;
  const teams = { a: '', b: '' };
  const servers = { a1: '', a2: '', b1: '' };
  const streams: Stream[] = [];

  const open = async (client: ApiClient, lastEventId?: string) => {
    const stream = await EventStreamReader.open<ServerWatchEvent>(client, '/servers/watch', lastEventId);
    streams.push(stream);
    expect(stream.status).to.equal(200);
    return stream;
  };
  const synced = (s: Stream, what: string) => s.next((e) => e.event === 'synced', `${what}: synced`);
  const create = async (teamId: string, name: string) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: agent.nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY', 5_000);
    return res.body.id;
  };
  const list = async (client: ApiClient) => (await client.get<ServerPage>('/servers?limit=200')).body.items;
  const converged = (s: Stream, id: string, runtimeState: string) =>
    s.next((e) => e.event === 'server' && e.data.id === id && e.data.runtimeState === runtimeState && e.data.convergence === 'CONVERGED', `${id} ${runtimeState}`);

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    teams.a = (await admin.post<Team>('/teams', { name: 'team-a' })).body.id;
    teams.b = (await admin.post<Team>('/teams', { name: 'team-b' })).body.id;
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'watch-node');
    const viewerRole = (await admin.get<RolePage>('/roles?limit=200')).body.items.find((r) => r.name === 'viewer')!.id;
    const vera = await createReadyUser(t, admin, 'vera');
    expect((await admin.put(`/teams/${teams.a}/members/${vera.userId}`, { roleIds: [viewerRole] })).status).to.equal(200);
    viewer = vera.client;
    servers.a1 = await create(teams.a, 'a1');
    servers.b1 = await create(teams.b, 'b1');
    servers.a2 = await create(teams.a, 'a2');
  });
  afterEach(() => streams.splice(0).forEach((s) => s.close()));
  after(async () => {
    agent.stop();
    await t.dispose();
  });

  it('opens with one `server` event per server the caller may read, as GET /servers lists them, then `synced`', async () => {
    const [adminStream, viewerStream] = [await open(admin), await open(viewer)];
    await synced(adminStream, 'administrator');
    await synced(viewerStream, 'viewer');
    for (const [stream, client, names] of [[adminStream, admin, ['a1', 'b1', 'a2']], [viewerStream, viewer, ['a1', 'a2']]] as const) {
      const events = opening(stream);
      const items = events.slice(0, -1).map((e) => e.data as ServerListItem);
      expect(items.map((s) => s.name)).to.deep.equal(names);
      expect(items, 'the snapshot is the list').to.deep.equal(await list(client));
      expect(events.slice(0, -1).map((e) => e.event)).to.deep.equal(names.map(() => 'server'));
      expect(events.at(-1)!.data).to.deep.equal({ snapshot: true, events: names.length });
      // Snapshot items `<epoch>-<seq>.<n>`, then `synced` as a change id: all one epoch, increasing.
      expect(events.slice(0, -1).map((e) => e.id)).to.satisfy((ids: string[]) => ids.every((id, i) => snapshotId.exec(id)?.[3] === String(i + 1)));
      expect(events.at(-1)!.id).to.match(changeId);
      expect(increasing(events.map((e) => e.id)), events.map((e) => e.id).join(' ')).to.equal(true);
    }
    expect(new Set([...opening(adminStream), ...opening(viewerStream)].map((e) => /^[0-9a-f]+/.exec(e.id)![0])).size, 'one epoch').to.equal(1);
  });

  it('allows 8 streams per user: the 9th gets 429 with Retry-After, another user still gets 200; a closed stream frees its slot', async () => {
    const eight = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(() => open(admin)));
    await Promise.all(eight.map((s, i) => synced(s, `stream ${i + 1}`)));
    const ninth = await openSse(`${t.baseUrl}/api/v1/servers/watch`, { cookie: admin.auth.cookie! });
    ninth.close();
    expect(ninth.status).to.equal(429);
    expect(ninth.problem?.code).to.equal('too_many_attempts');
    expect(Number(ninth.headers.get('retry-after'))).to.be.greaterThan(0);
    await synced(await open(viewer), 'another user');
    eight[0].close();
    const again = await waitFor(async () => {
      const s = await EventStreamReader.open<ServerWatchEvent>(admin, '/servers/watch');
      streams.push(s);
      return s.status === 200 ? s : undefined;
    }, { what: 'a freed slot', timeoutMs: 3_000 });
    await synced(again, 'after a close');
  });

  it('a client resuming with Last-Event-ID gets exactly the changes it missed that it may read, then `synced`, and nothing twice', async () => {
    const control = await open(admin);
    await synced(control, 'control');
    const first = await open(viewer);
    const mark = (await synced(first, 'first connection')).id;
    first.close();

    // While the viewer is away: a1 and b1 start; only a1 is the viewer's.
    expect((await admin.post(`/servers/${servers.a1}/start`)).status).to.equal(202);
    expect((await admin.post(`/servers/${servers.b1}/start`)).status).to.equal(202);
    await converged(control, servers.a1, 'RUNNING');
    await converged(control, servers.b1, 'RUNNING');

    const resumed = await open(viewer, mark);
    const done = await synced(resumed, 'resumed');
    const missed = changesAfter(control, mark).filter((e) => e.event === 'server' && e.data.id === servers.a1);
    expect(missed.length).to.be.greaterThan(1);
    expect(opening(resumed).slice(0, -1), 'the viewer\'s missed changes, with the ids the control stream saw').to.deep.equal(missed);
    expect(done.data).to.deep.equal({ snapshot: false, events: missed.length });
    expect(increasing([mark, ...opening(resumed).map((e) => e.id)])).to.equal(true);

    // The administrator resuming from the same place gets both servers' changes, as the control stream saw them.
    const adminResumed = await open(admin, mark);
    const adminDone = await synced(adminResumed, 'administrator resumed');
    expect(opening(adminResumed).slice(0, -1)).to.deep.equal(changesAfter(control, mark).filter((e) => seqOf(e.id) < seqOf(adminDone.id)));

    // Then live, once each.
    expect((await admin.post(`/servers/${servers.a1}/stop`)).status).to.equal(202);
    await converged(resumed, servers.a1, 'STOPPED');
    await converged(control, servers.a1, 'STOPPED');
    const ids = resumed.events.map((e) => e.id);
    expect(new Set(ids).size, 'no event twice').to.equal(ids.length);
    expect(resumed.events.filter((e) => e.event === 'server' && e.data.teamId === teams.b)).to.deep.equal([]);
    expect(resumed.events.slice(opening(resumed).length)).to.deep.equal(changesAfter(control, done.id).filter((e) => e.event === 'server' && e.data.id === servers.a1));
  });

  it('a snapshot item\'s id, another Controller\'s, one never given out, or garbage gets a fresh snapshot', async () => {
    const first = await open(viewer);
    await synced(first, 'first');
    const [epoch, seq] = changeId.exec(opening(first).at(-1)!.id)!.slice(1);
    const other = epoch === 'abcdef01' ? 'abcdef02' : 'abcdef01';
    for (const stale of [opening(first)[0].id, `${other}-${seq}`, `${epoch}-${Number(seq) + 1000}`, 'not-an-id', '']) {
      const fresh = await open(viewer, stale);
      const done = await synced(fresh, stale);
      expect(done.data, stale).to.deep.equal({ snapshot: true, events: 2 });
      expect(opening(fresh).slice(0, -1).map((e) => (e.data as ServerListItem).name), stale).to.deep.equal(['a1', 'a2']);
      fresh.close();
    }
  });

  it('a client that stops reading is let go once 4 MiB behind, and resumes with its last id', async () => {
    // A raw connection that reads nothing for a while: the Controller's buffer for it fills.
    const socket = connect(t.controller.httpPort, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8').on('data', (d: string) => (received += d));
    socket.write(`GET /api/v1/servers/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${viewer.auth.cookie}\r\n\r\n`);
    try {
      await waitFor(() => received.includes('event: synced'), { what: 'the opening' });
      socket.pause();
      const doc = (await t.controller.services.deps.repos.servers.findById(servers.a1))!;
      const changes = 20_000;
      for (let i = 0; i < changes; i++) t.controller.services.serverAggregate.changed(doc);
      socket.resume();
      // The end of the chunked response: the Controller closed the stream.
      await waitFor(() => received.endsWith('\r\n0\r\n\r\n'), { timeoutMs: 20_000, what: 'the stream to end' });
      const ids = [...received.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
      const live = ids.filter((id) => changeId.test(id)).length - 1;
      expect(live, 'it was cut before the end').to.be.within(1, changes - 1);
      expect(received.length).to.be.above(4 * 2 ** 20);
      const resumed = await open(viewer, ids.at(-1));
      // More were missed than the ring keeps: a fresh snapshot.
      expect((await synced(resumed, 'after the cut')).data).to.deep.equal({ snapshot: true, events: 2 });
    } finally {
      socket.destroy();
    }
  });

  it('an id older than the ring keeps (5 minutes) gets a fresh snapshot', async () => {
    const first = await open(viewer);
    const mark = (await synced(first, 'first')).id;
    expect((await admin.post(`/servers/${servers.a2}/start`)).status).to.equal(202);
    await converged(first, servers.a2, 'RUNNING');
    first.close();
    const resumable = await open(viewer, mark);
    expect((await synced(resumable, 'within the ring')).data).to.include({ snapshot: false });
    t.clock.advance(6 * 60_000);
    const tooOld = await open(viewer, mark);
    expect((await synced(tooOld, 'too old')).data).to.deep.equal({ snapshot: true, events: 2 });
  });
});
