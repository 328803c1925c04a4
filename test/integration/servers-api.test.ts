import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCursor } from '../../src/controller/domain/cursor.js';
import { defaultTemplatesDir } from '../../src/controller/templates/template-catalog.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { EventStreamReader } from '../support/event-stream.js';
import { FakeAgent } from '../support/fake-agent.js';
import { privateGamePorts } from '../support/game-ports.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { Node, RolePage, ServerDetail, ServerPage, ServerWatchEvent, Team, TemplatePage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { allPages, expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };

/** The shipped templates plus `loner`: simcraft, but not a network member (as vanilla, which needs Java). */
async function templatesDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
  for (const file of ['simcraft.json', 'simproxy.json']) await writeFile(join(dir, file), await readFile(join(defaultTemplatesDir(), file)));
  const { network: _memberSettings, ...loner } = JSON.parse(await readFile(join(defaultTemplatesDir(), 'simcraft.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(dir, 'loner.json'), JSON.stringify({ ...loner, id: 'loner', name: 'Loner', networkMember: false }));
  return dir;
}

/** The generations a server's change events carried, after the opening snapshot (up to `synced`). */
const serverGenerations = (events: ServerWatchEvent[], serverId: string) =>
  events.slice(events.findIndex((e) => e.event === 'synced') + 1).flatMap((e) => (e.event === 'server' && e.data.id === serverId ? [e.data.generation] : []));

describe('servers API: list, filters, permissions, create rules, phases, watch', function () {
  this.timeout(30_000);
  let t: TestController;
  let templates: string;
  let admin: ApiClient;
  let viewer: ApiClient;
  let operator: ApiClient;
  let big: FakeAgent;
  let little: FakeAgent;
  /** Nodes a test adds; they stay connected to the end, so their servers do not turn UNKNOWN. */
  const extraAgents: FakeAgent[] = [];
  const teams = { a: '', b: '', paging: '' };
  const agents = () => [big, little, ...extraAgents];

  const create = async (teamId: string, name: string, extra: Record<string, unknown> = {}) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: big.nodeId, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const ready = (id: string) => waitForServer(admin, id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY and CONVERGED', 5_000);
  const listAll = (client: ApiClient, query = '', limit = 50) =>
    allPages((cursor) => client.get<ServerPage>(`/servers?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`));

  before(async () => {
    templates = await templatesDir();
    t = await startTestController({ extraArgs: ['--templates-dir', templates] });
    ({ admin } = await setupAdmin(t));
    for (const key of Object.keys(teams) as (keyof typeof teams)[]) teams[key] = (await admin.post<Team>('/teams', { name: `team-${key}` })).body.id;
    big = await FakeAgent.connect(admin, t.controller.grpcPort, 'big');
    little = await FakeAgent.connect(admin, t.controller.grpcPort, 'little', { cpuMillis: 1000, memoryBytes: GiB });
    const roles = new Map((await admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const member = async (name: string, role: string) => {
      const { client, userId } = await createReadyUser(t, admin, name);
      const res = await admin.put(`/teams/${teams.a}/members/${userId}`, { roleIds: [roles.get(role)] });
      expect(res.status, res.text).to.equal(200);
      return client;
    };
    viewer = await member('vera', 'viewer');
    operator = await member('otto', 'operator');
    for (const agent of agents()) {
      await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    }
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    for (const agent of agents()) agent?.stop();
    await t.dispose();
    await rm(templates, { recursive: true, force: true });
  });

  describe('GET /servers', () => {
    it('pages in creation order, with no gap or duplicate while servers are added between pages', async () => {
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await create(teams.paging, `page-${i}`)).id);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        const res = await admin.get<ServerPage>(`/servers?teamId=${teams.paging}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.items.length).to.be.at.most(3);
        seen.push(...res.body.items.map((s) => s.id));
        cursor = res.body.nextCursor;
        if (cursor === undefined) break;
        expect(cursor.length).to.be.at.most(200);
        if (page < 2) created.push((await create(teams.paging, `late-${page}`)).id);
      }
      expect(seen).to.deep.equal(created);
    });

    it('without filters an administrator pages through every server, in creation order', async () => {
      await create(teams.a, 'alpha');
      await create(teams.b, 'bravo');
      const listed = (await listAll(admin, '', 2)).map((s) => s.id);
      const stored = (await t.controller.repos.servers.find({}, { sort: { _id: 1 } })).map((s) => s._id);
      expect(listed).to.deep.equal(stored);
      expect(new Set(listed).size).to.equal(listed.length);
    });

    it('checks limit (1..200) and cursor (at most 200 characters, one this list issued)', async () => {
      for (const query of ['limit=0', 'limit=201', 'limit=abc', `cursor=${'x'.repeat(201)}`, 'cursor=not-a-cursor', `cursor=${encodeCursor(5)}`]) {
        expectProblem(await admin.get(`/servers?${query}`), 400, 'invalid_request');
      }
      expect((await admin.get('/servers?limit=200')).status).to.equal(200);
      expect((await admin.get<ServerPage>('/servers?limit=1')).body.items).to.have.length(1);
      expectProblem(await admin.get('/servers?convergence=SIDEWAYS'), 400, 'invalid_request');
    });

    it('filters by teamId and nodeId', async () => {
      const bServers = await listAll(admin, `&teamId=${teams.b}`);
      expect(bServers.map((s) => s.name)).to.deep.equal(['bravo']);
      const onLittle = await create(teams.a, 'on-little', { nodeId: little.nodeId });
      expect((await listAll(admin, `&nodeId=${little.nodeId}`)).map((s) => s.id)).to.deep.equal([onLittle.id]);
      expect((await listAll(admin, `&nodeId=${little.nodeId}&teamId=${teams.b}`))).to.deep.equal([]);
    });

    it('filters by convergence, across pages', async () => {
      for (const s of await listAll(admin)) await ready(s.id);
      big.hold();
      const pending = await create(teams.a, 'pending');
      const inProgress = await listAll(admin, '&convergence=IN_PROGRESS', 1);
      expect(inProgress.map((s) => s.id)).to.deep.equal([pending.id]);
      const converged = await listAll(admin, '&convergence=CONVERGED', 2);
      const all = await listAll(admin);
      expect(converged.map((s) => s.id)).to.deep.equal(all.filter((s) => s.id !== pending.id).map((s) => s.id));
      big.release();
      await ready(pending.id);
    });
  });

  describe('permissions', () => {
    let inA: string;
    let inB: string;
    before(async () => {
      inA = (await create(teams.a, 'perm-a')).id;
      inB = (await create(teams.b, 'perm-b')).id;
      await ready(inA);
      await ready(inB);
    });

    it('a viewer lists only its team\'s servers', async () => {
      const listed = await listAll(viewer);
      expect(listed.length).to.be.greaterThan(0);
      expect(listed.every((s) => s.teamId === teams.a)).to.equal(true);
      expect(listed.map((s) => s.id)).to.deep.equal((await listAll(admin, `&teamId=${teams.a}`)).map((s) => s.id));
      expect(await listAll(viewer, `&teamId=${teams.b}`)).to.deep.equal([]);
    });

    it('another team\'s server is not found, whatever the request', async () => {
      for (const res of [
        await viewer.get(`/servers/${inB}`), await viewer.post(`/servers/${inB}/start`), await viewer.post(`/servers/${inB}/stop`),
        await viewer.post(`/servers/${inB}/restart`), await viewer.patch(`/servers/${inB}`, { resources: small }), await viewer.delete(`/servers/${inB}`),
        await viewer.post(`/servers/${inB}/conditions/CRASH_LOOP/acknowledge`),
        await viewer.post('/servers', { name: 'x', teamId: teams.b, software: simcraft, resources: small }),
      ]) expectProblem(res, 404, 'not_found');
    });

    it('a viewer may read but not start, stop, change, delete or create', async () => {
      expect((await viewer.get(`/servers/${inA}`)).status).to.equal(200);
      for (const res of [
        await viewer.post(`/servers/${inA}/start`), await viewer.post(`/servers/${inA}/stop`), await viewer.post(`/servers/${inA}/restart`),
        await viewer.patch(`/servers/${inA}`, { resources: small }), await viewer.delete(`/servers/${inA}`),
        await viewer.post('/servers', { name: 'x', teamId: teams.a, software: simcraft, resources: small }),
      ]) expectProblem(res, 403, 'forbidden');
    });

    it('an operator may start and stop but not change, delete or create', async () => {
      expect((await operator.post(`/servers/${inA}/start`)).status).to.equal(202);
      expect((await operator.post(`/servers/${inA}/stop`)).status).to.equal(202);
      for (const res of [
        await operator.patch(`/servers/${inA}`, { resources: small }), await operator.delete(`/servers/${inA}`),
        await operator.post('/servers', { name: 'x', teamId: teams.a, software: simcraft, resources: small }),
      ]) expectProblem(res, 403, 'forbidden');
    });
  });

  describe('create rules', () => {
    const post = (body: Record<string, unknown>) => admin.post<ServerDetail>('/servers', { name: 'rules', teamId: teams.a, software: simcraft, resources: small, ...body });

    it('refuses an unknown template or version, and a proxy template', async () => {
      expectProblem(await post({ software: { template: 'nope', version: '1' } }), 400, 'invalid_request', 'template');
      expectProblem(await post({ software: { template: 'simcraft', version: '0.0.1' } }), 400, 'invalid_request', 'version');
      expectProblem(await post({ software: { template: 'simproxy', version: (await admin.get<TemplatePage>('/templates')).body.items.find((x) => x.id === 'simproxy')?.versions[0] } }), 400, 'invalid_request', '/network/proxy');
    });

    it('refuses network membership for a template that is not a network member, on create and on PATCH', async () => {
      expectProblem(await post({ software: { template: 'loner', version: '1.21.4' }, inNetwork: true }), 409, 'not_network_capable');
      const member = await post({ inNetwork: true });
      expect(member.status, member.text).to.equal(201);
      expect(member.body.inNetwork).to.equal(true);
      const loner = await create(teams.a, 'loner', { software: { template: 'loner', version: '1.21.4' } });
      await ready(loner.id);
      expectProblem(await admin.patch(`/servers/${loner.id}`, { inNetwork: true }), 409, 'not_network_capable');
    });

    it('insufficient_capacity when no Node has room, or the named Node is disabled; an unknown Node is invalid', async () => {
      expectProblem(await post({ nodeId: undefined, resources: { cpuMillis: 100_000, memoryBytes: GiB } }), 409, 'insufficient_capacity');
      expectProblem(await post({ nodeId: little.nodeId, resources: { cpuMillis: 100, memoryBytes: 2 * GiB } }), 409, 'insufficient_capacity');
      expect((await admin.post(`/nodes/${little.nodeId}/disable`)).status).to.equal(200);
      try {
        expectProblem(await post({ nodeId: little.nodeId }), 409, 'insufficient_capacity');
      } finally {
        await admin.post(`/nodes/${little.nodeId}/enable`);
      }
      expectProblem(await post({ nodeId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request');
    });

    it('a game port is the lowest of the Node\'s range that no server on the same host holds; an exhausted range is insufficient_capacity', async () => {
      const { first } = await privateGamePorts();
      const east = await FakeAgent.connect(admin, t.controller.grpcPort, 'east', undefined, { hostname: 'shared.test', gamePorts: { first, last: first + 1 } });
      extraAgents.push(east);
      const west = await FakeAgent.connect(admin, t.controller.grpcPort, 'west', undefined, { hostname: 'shared.test', gamePorts: { first, last: first + 2 } });
      extraAgents.push(west);
      for (const agent of [east, west]) {
        await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
      }
      expect((await admin.get<Node>(`/nodes/${west.nodeId}`)).body.status.gamePorts).to.deep.equal({ first, last: first + 2 });
      const team = (await admin.post<Team>('/teams', { name: 'ports' })).body.id;
      const port = async (nodeId: string) => (await create(team, `on-${nodeId}`, { nodeId })).gamePort;
      expect(await port(east.nodeId)).to.equal(first);
      expect(await port(west.nodeId)).to.equal(first + 1);
      expectProblem(await post({ teamId: team, nodeId: east.nodeId }), 409, 'insufficient_capacity');
      expect(await port(west.nodeId)).to.equal(first + 2);
    });
  });

  describe('phases and guards', () => {
    it('PROVISIONING refuses start, stop and PATCH with phase_busy until the Node has installed it', async () => {
      big.hold();
      const server = await create(teams.a, 'slow');
      expectProblem(await admin.post(`/servers/${server.id}/start`), 409, 'phase_busy');
      expectProblem(await admin.post(`/servers/${server.id}/stop`), 409, 'phase_busy');
      expectProblem(await admin.patch(`/servers/${server.id}`, { resources: small }), 409, 'phase_busy');
      big.release();
      await ready(server.id);
    });

    it('DELETING refuses start with phase_busy; deleting twice is fine; the record goes once the Node removed it', async () => {
      const server = await create(teams.a, 'doomed');
      await ready(server.id);
      big.hold();
      const first = await admin.delete<ServerDetail>(`/servers/${server.id}`);
      expect(first.status, first.text).to.equal(202);
      expect(first.body).to.include({ phase: 'DELETING', desiredState: 'DELETED' });
      expectProblem(await admin.post(`/servers/${server.id}/start`), 409, 'phase_busy');
      expectProblem(await admin.patch(`/servers/${server.id}`, { inNetwork: true }), 409, 'phase_busy');
      const second = await admin.delete<ServerDetail>(`/servers/${server.id}`);
      expect(second.status, second.text).to.equal(202);
      expect(second.body.generation).to.equal(first.body.generation);
      big.release();
      await waitFor(async () => (await admin.get(`/servers/${server.id}`)).status === 404, { what: 'the record to go' });
    });

    it('a team with servers and a Node with servers placed on it cannot be deleted', async () => {
      expectProblem(await admin.delete(`/teams/${teams.b}`), 409, 'conflict');
      expectProblem(await admin.delete(`/nodes/${little.nodeId}`), 409, 'conflict');
      expect((await admin.get(`/teams/${teams.b}`)).status).to.equal(200);
    });

    it('reports are applied in arrival order even when reading the record is slow for the first', async () => {
      const server = await create(teams.a, 'reported');
      const current = await ready(server.id);
      const servers = t.controller.repos.servers;
      const findById = servers.findById.bind(servers);
      const replace = servers.replace.bind(servers);
      let slowOnce = true;
      let writes = 0;
      servers.findById = async (id: string) => {
        if (id === server.id && slowOnce) {
          slowOnce = false;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return findById(id);
      };
      servers.replace = async (...args: Parameters<typeof replace>) => {
        const result = await replace(...args);
        if ((args[0] as { _id?: string })._id === server.id) writes++;
        return result;
      };
      try {
        big.send({ serverId: server.id, observedGeneration: current.generation, runtimeState: 'RUNTIME_STATE_STARTING' });
        big.send({ serverId: server.id, observedGeneration: current.generation, runtimeState: 'RUNTIME_STATE_STOPPED' });
        await waitFor(() => writes === 2 || undefined, { what: 'both reports written' });
      } finally {
        Object.assign(servers, { findById, replace });
      }
      expect((await admin.get<ServerDetail>(`/servers/${server.id}`)).body.status.runtimeState).to.equal('STOPPED');
    });

    it('acknowledging: an unknown condition is not found; a reported one is acknowledged by reason into the desired spec', async () => {
      const server = await create(teams.a, 'ack');
      const current = await ready(server.id);
      expectProblem(await admin.post(`/servers/${server.id}/conditions/NO_SUCH_THING/acknowledge`), 404, 'not_found');
      const since = new Date().toISOString();
      big.send({ serverId: server.id, observedGeneration: current.generation, conditions: [{ id: 'c-1', reason: 'DISK_PRESSURE', message: 'full', since }] });
      await waitForServer(admin, server.id, (s) => s.conditionCount === 1, 'the condition');
      const ack = await admin.post<ServerDetail>(`/servers/${server.id}/conditions/DISK_PRESSURE/acknowledge`);
      expect(ack.status, ack.text).to.equal(200);
      expect(ack.body.acknowledgedConditions).to.deep.equal(['c-1']);
      expect(ack.body.generation).to.equal(current.generation + 1);
    });
  });

  describe('GET /servers/watch', () => {
    const streams: EventStreamReader<ServerWatchEvent>[] = [];
    const open = async (client: ApiClient) => {
      const stream = await EventStreamReader.open<ServerWatchEvent>(client, '/servers/watch');
      streams.push(stream);
      return stream;
    };
    after(() => streams.forEach((s) => s.close()));

    it('needs a signed-in caller', async () => {
      expectProblem(await admin.anonymous().get('/servers/watch'), 401, 'unauthenticated');
    });

    it('sends a `server` event in the list-item shape for changes the caller can read, none for others, `server-deleted` on deletion', async () => {
      const a = await create(teams.a, 'watched-a');
      const b = await create(teams.b, 'watched-b');
      await ready(a.id);
      await ready(b.id);
      const viewerStream = await open(viewer);
      const adminStream = await open(admin);
      expect(viewerStream.status).to.equal(200);
      expect(viewerStream.contentType).to.match(/^text\/event-stream/);

      expect((await admin.post(`/servers/${b.id}/start`)).status).to.equal(202);
      expect((await admin.post(`/servers/${a.id}/start`)).status).to.equal(202);
      await adminStream.next((e) => e.event === 'server' && e.data.id === b.id && e.data.desiredState === 'RUNNING', 'B started, for the administrator');
      const seen = await viewerStream.next((e) => e.event === 'server' && e.data.id === a.id && e.data.desiredState === 'RUNNING', 'A started, for the viewer');
      const item = (await listAll(admin, `&teamId=${teams.a}`)).find((s) => s.id === a.id);
      expect(Object.keys(seen.data).sort()).to.deep.equal(Object.keys(item ?? {}).sort());
      await viewerStream.next((e) => e.event === 'server' && e.data.id === a.id && e.data.convergence === 'CONVERGED' && e.data.runtimeState === 'RUNNING', 'A converged');
      await adminStream.next((e) => e.event === 'server' && e.data.id === b.id && e.data.runtimeState === 'RUNNING', 'B converged');

      expect((await admin.delete(`/servers/${a.id}`)).status).to.equal(202);
      const deleted = await viewerStream.next((e) => e.event === 'server-deleted', 'server-deleted');
      expect(deleted.data).to.deep.equal({ id: a.id });
      expect(viewerStream.comments[0]).to.equal('open');
      expect(viewerStream.events.filter((e) => (e.event === 'server' && e.data.teamId === teams.b) || (e.event !== 'synced' && e.data.id === b.id))).to.deep.equal([]);
    });

    it('delivers a server\'s events in the order they happened', async () => {
      const server = await create(teams.a, 'ordered');
      await ready(server.id);
      const stream = await open(viewer);
      for (let i = 0; i < 5; i++) {
        expect((await admin.post(`/servers/${server.id}/${i % 2 === 0 ? 'start' : 'stop'}`)).status).to.equal(202);
      }
      const last = (await admin.get<ServerDetail>(`/servers/${server.id}`)).body.generation;
      await stream.next((e) => e.event === 'server' && e.data.id === server.id && e.data.generation === last, 'the last generation');
      const generations = serverGenerations(stream.events, server.id);
      expect(generations).to.deep.equal([...generations].sort((x, y) => x - y));
    });

    it('keeps the order when the permission check of an earlier event is slower than a later one\'s', async () => {
      const server = await create(teams.a, 'ordered-slow');
      await ready(server.id);
      const stream = await open(viewer);
      await stream.next((e) => e.event === 'synced', 'the end of the snapshot');
      const access = t.controller.services.access;
      const may = access.may.bind(access);
      // The checks for the start's event wait; the stop's answer at once, so without ordering they would overtake.
      let slow = true;
      access.may = async (...args: Parameters<typeof may>) => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 100));
        return may(...args);
      };
      try {
        const first = await admin.post<ServerDetail>(`/servers/${server.id}/start`);
        slow = false;
        const second = await admin.post<ServerDetail>(`/servers/${server.id}/stop`);
        await stream.next((e) => e.event === 'server' && e.data.id === server.id && e.data.generation === second.body.generation, 'the stop');
        const generations = serverGenerations(stream.events, server.id);
        expect(generations[0]).to.equal(first.body.generation);
        expect(generations).to.deep.equal([...generations].sort((x, y) => x - y));
      } finally {
        access.may = may;
      }
    });
  });

  describe('a Node lost', () => {
    it('its servers are UNKNOWN and the convergence filter finds them', async () => {
      const onLittle = (await listAll(admin, `&nodeId=${little.nodeId}`)).map((s) => s.id);
      expect(onLittle.length).to.be.greaterThan(0);
      little.stop();
      await waitFor(async () => (await admin.get<Node>(`/nodes/${little.nodeId}`)).body.status.connectionState === 'UNREACHABLE', { what: 'UNREACHABLE' });
      expect((await listAll(admin, '&convergence=UNKNOWN')).map((s) => s.id)).to.deep.equal(onLittle);
    });
  });
});
