import { expect } from 'chai';
import { encodeCursor } from '../../src/controller/domain/cursor.js';
import type { Node, ServerDetail, ServerPage } from '../support/api-types.js';
import { waitForServer } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { ServersRig, simcraft, small } from '../support/servers-rig.js';
import { waitFor } from '../support/wait-for.js';

describe('servers API — list, filters, permissions, phases and guards, a Node lost', function () {
  this.timeout(30_000);
  const rig = ServersRig.register();
  const { teams, create, ready, listAll } = rig;

  describe('GET /servers', () => {
    it('pages in creation order, with no gap or duplicate while servers are added between pages', async () => {
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await create(teams.paging, `page-${i}`)).id);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        const res = await rig.admin.get<ServerPage>(`/servers?teamId=${teams.paging}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
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
      const listed = (await listAll(rig.admin, '', 2)).map((s) => s.id);
      const stored = (await rig.t.controller.repos.servers.find({}, { sort: { _id: 1 } })).map((s) => s._id);
      expect(listed).to.deep.equal(stored);
      expect(new Set(listed).size).to.equal(listed.length);
    });

    it('checks limit (1..200) and cursor (at most 200 characters, one this list issued)', async () => {
      for (const query of ['limit=0', 'limit=201', 'limit=abc', `cursor=${'x'.repeat(201)}`, 'cursor=not-a-cursor', `cursor=${encodeCursor(5)}`]) {
        expectProblem(await rig.admin.get(`/servers?${query}`), 400, 'invalid_request');
      }
      expect((await rig.admin.get('/servers?limit=200')).status).to.equal(200);
      expect((await rig.admin.get<ServerPage>('/servers?limit=1')).body.items).to.have.length(1);
      expectProblem(await rig.admin.get('/servers?convergence=SIDEWAYS'), 400, 'invalid_request');
    });

    it('filters by teamId and nodeId', async () => {
      const bServers = await listAll(rig.admin, `&teamId=${teams.b}`);
      expect(bServers.map((s) => s.name)).to.deep.equal(['bravo']);
      const onLittle = await create(teams.a, 'on-little', { nodeId: rig.little.nodeId });
      expect((await listAll(rig.admin, `&nodeId=${rig.little.nodeId}`)).map((s) => s.id)).to.deep.equal([onLittle.id]);
      expect((await listAll(rig.admin, `&nodeId=${rig.little.nodeId}&teamId=${teams.b}`))).to.deep.equal([]);
    });

    it('filters by convergence, across pages', async () => {
      for (const s of await listAll(rig.admin)) await ready(s.id);
      rig.big.hold();
      const pending = await create(teams.a, 'pending');
      const inProgress = await listAll(rig.admin, '&convergence=IN_PROGRESS', 1);
      expect(inProgress.map((s) => s.id)).to.deep.equal([pending.id]);
      const converged = await listAll(rig.admin, '&convergence=CONVERGED', 2);
      const all = await listAll(rig.admin);
      expect(converged.map((s) => s.id)).to.deep.equal(all.filter((s) => s.id !== pending.id).map((s) => s.id));
      rig.big.release();
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
      const listed = await listAll(rig.viewer);
      expect(listed.length).to.be.greaterThan(0);
      expect(listed.every((s) => s.teamId === teams.a)).to.equal(true);
      expect(listed.map((s) => s.id)).to.deep.equal((await listAll(rig.admin, `&teamId=${teams.a}`)).map((s) => s.id));
      expect(await listAll(rig.viewer, `&teamId=${teams.b}`)).to.deep.equal([]);
    });

    it('another team\'s server is not found, whatever the request', async () => {
      for (const res of [
        await rig.viewer.get(`/servers/${inB}`), await rig.viewer.post(`/servers/${inB}/start`), await rig.viewer.post(`/servers/${inB}/stop`),
        await rig.viewer.post(`/servers/${inB}/restart`), await rig.viewer.patch(`/servers/${inB}`, { resources: small }), await rig.viewer.delete(`/servers/${inB}`),
        await rig.viewer.post(`/servers/${inB}/conditions/CRASH_LOOP/acknowledge`),
        await rig.viewer.post('/servers', { name: 'x', teamId: teams.b, software: simcraft, resources: small }),
      ]) expectProblem(res, 404, 'not_found');
    });

    it('a viewer may read but not start, stop, change, delete or create', async () => {
      expect((await rig.viewer.get(`/servers/${inA}`)).status).to.equal(200);
      for (const res of [
        await rig.viewer.post(`/servers/${inA}/start`), await rig.viewer.post(`/servers/${inA}/stop`), await rig.viewer.post(`/servers/${inA}/restart`),
        await rig.viewer.patch(`/servers/${inA}`, { resources: small }), await rig.viewer.delete(`/servers/${inA}`),
        await rig.viewer.post('/servers', { name: 'x', teamId: teams.a, software: simcraft, resources: small }),
      ]) expectProblem(res, 403, 'forbidden');
    });

    it('an operator may start and stop but not change, delete or create', async () => {
      expect((await rig.operator.post(`/servers/${inA}/start`)).status).to.equal(202);
      expect((await rig.operator.post(`/servers/${inA}/stop`)).status).to.equal(202);
      for (const res of [
        await rig.operator.patch(`/servers/${inA}`, { resources: small }), await rig.operator.delete(`/servers/${inA}`),
        await rig.operator.post('/servers', { name: 'x', teamId: teams.a, software: simcraft, resources: small }),
      ]) expectProblem(res, 403, 'forbidden');
    });
  });

  describe('phases and guards', () => {
    it('PROVISIONING refuses start, stop and PATCH with phase_busy until the Node has installed it', async () => {
      rig.big.hold();
      const server = await create(teams.a, 'slow');
      expectProblem(await rig.admin.post(`/servers/${server.id}/start`), 409, 'phase_busy');
      expectProblem(await rig.admin.post(`/servers/${server.id}/stop`), 409, 'phase_busy');
      expectProblem(await rig.admin.patch(`/servers/${server.id}`, { resources: small }), 409, 'phase_busy');
      rig.big.release();
      await ready(server.id);
    });

    it('DELETING refuses start with phase_busy; deleting twice is fine; the record goes once the Node removed it', async () => {
      const server = await create(teams.a, 'doomed');
      await ready(server.id);
      rig.big.hold();
      const first = await rig.admin.delete<ServerDetail>(`/servers/${server.id}`);
      expect(first.status, first.text).to.equal(202);
      expect(first.body).to.include({ phase: 'DELETING', desiredState: 'DELETED' });
      expectProblem(await rig.admin.post(`/servers/${server.id}/start`), 409, 'phase_busy');
      expectProblem(await rig.admin.patch(`/servers/${server.id}`, { inNetwork: true }), 409, 'phase_busy');
      const second = await rig.admin.delete<ServerDetail>(`/servers/${server.id}`);
      expect(second.status, second.text).to.equal(202);
      expect(second.body.generation).to.equal(first.body.generation);
      rig.big.release();
      await waitFor(async () => (await rig.admin.get(`/servers/${server.id}`)).status === 404, { what: 'the record to go' });
    });

    it('a team with servers and a Node with servers placed on it cannot be deleted', async () => {
      expectProblem(await rig.admin.delete(`/teams/${teams.b}`), 409, 'conflict');
      expectProblem(await rig.admin.delete(`/nodes/${rig.little.nodeId}`), 409, 'conflict');
      expect((await rig.admin.get(`/teams/${teams.b}`)).status).to.equal(200);
    });

    it('reports are applied in arrival order even when reading the record is slow for the first', async () => {
      const server = await create(teams.a, 'reported');
      const current = await ready(server.id);
      const servers = rig.t.controller.repos.servers;
      const findById = servers.findById.bind(servers);
      const replaceVersion = servers.replaceVersion.bind(servers);
      let slowOnce = true;
      let writes = 0;
      servers.findById = async (id: string) => {
        if (id === server.id && slowOnce) {
          slowOnce = false;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return findById(id);
      };
      servers.replaceVersion = async (...args: Parameters<typeof replaceVersion>) => {
        const result = await replaceVersion(...args);
        if (args[0].id === server.id) writes++;
        return result;
      };
      try {
        rig.big.send({ serverId: server.id, observedGeneration: current.generation, runtimeState: 'RUNTIME_STATE_STARTING' });
        rig.big.send({ serverId: server.id, observedGeneration: current.generation, runtimeState: 'RUNTIME_STATE_STOPPED' });
        await waitFor(() => writes === 2 || undefined, { what: 'both reports written' });
      } finally {
        Object.assign(servers, { findById, replaceVersion });
      }
      expect((await rig.admin.get<ServerDetail>(`/servers/${server.id}`)).body.status.runtimeState).to.equal('STOPPED');
    });

    it('acknowledging: an unknown condition is not found; a reported one is acknowledged by reason into the desired spec', async () => {
      const server = await create(teams.a, 'ack');
      const current = await ready(server.id);
      expectProblem(await rig.admin.post(`/servers/${server.id}/conditions/NO_SUCH_THING/acknowledge`), 404, 'not_found');
      const since = new Date().toISOString();
      rig.big.send({ serverId: server.id, observedGeneration: current.generation, conditions: [{ id: 'c-1', reason: 'DISK_PRESSURE', message: 'full', since }] });
      await waitForServer(rig.admin, server.id, (s) => s.conditionCount === 1, 'the condition');
      const ack = await rig.admin.post<ServerDetail>(`/servers/${server.id}/conditions/DISK_PRESSURE/acknowledge`);
      expect(ack.status, ack.text).to.equal(200);
      expect(ack.body.acknowledgedConditions).to.deep.equal(['c-1']);
      expect(ack.body.generation).to.equal(current.generation + 1);
    });
  });

  describe('a Node lost', () => {
    it('its servers are UNKNOWN and the convergence filter finds them', async () => {
      const onLittle = (await listAll(rig.admin, `&nodeId=${rig.little.nodeId}`)).map((s) => s.id);
      expect(onLittle.length).to.be.greaterThan(0);
      rig.little.stop();
      await waitFor(async () => (await rig.admin.get<Node>(`/nodes/${rig.little.nodeId}`)).body.status.connectionState === 'UNREACHABLE', { what: 'UNREACHABLE' });
      expect((await listAll(rig.admin, '&convergence=UNKNOWN')).map((s) => s.id)).to.deep.equal(onLittle);
    });
  });
});
