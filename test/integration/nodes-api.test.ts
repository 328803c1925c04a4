import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB } from '../support/fleet.js';
import type { AuditEventPage, EnrollmentIssued, Node, NodePage, Problem, RolePage, ServerDetail, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

describe('Nodes API', () => {
  let t: TestController;
  let admin: ApiClient;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('POST /nodes creates an AWAITING_ENROLLMENT Node with every field and a one-time token valid one hour', async () => {
    const res = await admin.post<EnrollmentIssued>('/nodes', { name: 'api-one', address: 'node1.example.com' });
    expect(res.status, res.text).to.equal(201);
    const { node, enrollmentToken, enrollmentExpiresAt } = res.body;
    expect(enrollmentToken).to.match(/^cairn_enr_[0-9A-Za-z]{40}$/);
    expect(Date.parse(enrollmentExpiresAt) - t.clock.now().getTime()).to.be.closeTo(3_600_000, 5_000);
    expect(node).to.deep.include({
      name: 'api-one', adminState: 'ENABLED', acceptsPlacements: false, address: 'node1.example.com', reachAddress: 'node1.example.com',
      conditions: [], reserved: { cpuMillis: 0, memoryBytes: 0 }, free: { cpuMillis: 0, memoryBytes: 0 },
    });
    expect(node.status).to.deep.equal({
      connectionState: 'AWAITING_ENROLLMENT', agentVersion: '', hostname: '', os: '', arch: '', runtimeName: '', runtimeVersion: '',
      allocatable: { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 }, usage: { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 },
    });
    const audit = await admin.get<AuditEventPage>(`/audit-events?action=node.create&targetId=${node.id}`);
    expect(audit.body.items[0]).to.deep.include({ actorKind: 'USER', outcome: 'SUCCESS' });
    expect(JSON.stringify(audit.body.items[0])).not.to.include(enrollmentToken);
  });

  it('refuses a duplicate name (any case), an address with a port, and an address over 253 characters', async () => {
    await admin.post('/nodes', { name: 'dup' });
    const dup = await admin.post<Problem>('/nodes', { name: 'DUP' });
    expect(dup.status).to.equal(409);
    expect(dup.body.code).to.equal('conflict');
    const port = await admin.post<Problem>('/nodes', { name: 'ported', address: '10.0.0.1:41565' });
    expect(port.status).to.equal(400);
    expect(port.body.detail).to.match(/body\.address/);
    const long = await admin.post('/nodes', { name: 'long', address: 'a'.repeat(254) });
    expect(long.status).to.equal(400);
  });

  it('lists Nodes in creation order with cursor paging', async () => {
    const names = ['page-a', 'page-b', 'page-c'];
    for (const name of names) await admin.post('/nodes', { name });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await admin.get<NodePage>(`/nodes?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).to.equal(200);
      expect(res.body.items.length).to.be.at.most(2);
      seen.push(...res.body.items.map((n) => n.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen.filter((n) => names.includes(n))).to.deep.equal(names);
  });

  it('PATCH changes the address and reachAddress follows; empty means the observed address', async () => {
    const { node } = (await admin.post<EnrollmentIssued>('/nodes', { name: 'patchy' })).body;
    const res = await admin.patch<Node>(`/nodes/${node.id}`, { address: '192.0.2.7' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ address: '192.0.2.7', reachAddress: '192.0.2.7' });
    const cleared = await admin.patch<Node>(`/nodes/${node.id}`, { address: '' });
    expect(cleared.body).to.include({ address: '', reachAddress: '' });
    expect((await admin.patch(`/nodes/${node.id}`, {})).status).to.equal(400);
  });

  it('enable, disable and revoke follow the machine; REVOKED is final (invalid_transition)', async () => {
    const { node } = (await admin.post<EnrollmentIssued>('/nodes', { name: 'states' })).body;
    expect((await admin.post<Node>(`/nodes/${node.id}/enable`)).body.adminState).to.equal('ENABLED');
    expect((await admin.post<Node>(`/nodes/${node.id}/disable`)).body.adminState).to.equal('DISABLED');
    expect((await admin.post<Node>(`/nodes/${node.id}/disable`)).body.adminState).to.equal('DISABLED');
    const revoked = await admin.post<Node>(`/nodes/${node.id}/revoke`);
    expect(revoked.body.adminState).to.equal('REVOKED');
    for (const action of ['enable', 'disable', 'revoke', 'enrollment-token']) {
      const res = await admin.post<Problem>(`/nodes/${node.id}/${action}`);
      expect(res.status, action).to.equal(409);
      expect(res.body.code, action).to.equal('invalid_transition');
    }
    const audit = await admin.get<AuditEventPage>(`/audit-events?targetId=${node.id}&action=node.enable`);
    expect(audit.body.items.map((e) => e.outcome)).to.deep.equal(['FAILED', 'SUCCESS']);
  });

  it('admin state survives a Controller restart', async () => {
    const { node } = (await admin.post<EnrollmentIssued>('/nodes', { name: 'durable' })).body;
    await admin.post(`/nodes/${node.id}/disable`);
    const cookie = admin.auth.cookie!;
    t = await t.restart();
    admin = t.api.withCookie(cookie);
    const after = await admin.get<Node>(`/nodes/${node.id}`);
    expect(after.body).to.deep.include({ adminState: 'DISABLED', acceptsPlacements: false });
    expect(after.body.status.connectionState).to.equal('AWAITING_ENROLLMENT');
  });

  it('DELETE removes the Node and its tokens', async () => {
    const { node } = (await admin.post<EnrollmentIssued>('/nodes', { name: 'doomed' })).body;
    expect((await admin.delete(`/nodes/${node.id}`)).status).to.equal(204);
    expect((await admin.get(`/nodes/${node.id}`)).status).to.equal(404);
    expect(await t.controller.repos.enrollmentTokens.count({ nodeId: node.id })).to.equal(0);
  });

  describe('with a server placed', () => {
    let agent: FakeAgent;
    let teamId: string;
    let serverId: string;

    before(async () => {
      agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'placed', { cpuMillis: 2000, memoryBytes: 2 * GiB });
      await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: 'the Node to accept placements' });
      teamId = (await admin.post<Team>('/teams', { name: 'placed-team' })).body.id;
      const created = await admin.post<ServerDetail>('/servers', {
        name: 'placed-server', teamId, nodeId: agent.nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 1500, memoryBytes: GiB },
      });
      expect(created.status, created.text).to.equal(201);
      serverId = created.body.id;
    });
    after(() => agent.stop());

    it('reserved and free come from the servers placed on the Node', async () => {
      const res = await admin.get<Node>(`/nodes/${agent.nodeId}`);
      expect(res.body.reserved).to.deep.equal({ cpuMillis: 1500, memoryBytes: GiB });
      expect(res.body.free).to.deep.equal({ cpuMillis: 500, memoryBytes: GiB });
    });

    it('nodes.read in a team shows the Nodes its servers run on, read-only', async () => {
      const viewer = (await admin.get<RolePage>('/roles')).body.items.find((r) => r.name === 'viewer');
      const { client, userId } = await createReadyUser(t, admin, 'team-reader');
      await admin.put(`/teams/${teamId}/members/${userId}`, { roleIds: [viewer?.id] });
      const list = await client.get<NodePage>('/nodes');
      expect(list.body.items.map((n) => n.id)).to.deep.equal([agent.nodeId]);
      expect((await client.get(`/nodes/${agent.nodeId}`)).status).to.equal(200);
      expect((await client.post(`/nodes/${agent.nodeId}/disable`)).status).to.equal(403);
    });

    it('DELETE is refused while a server is placed on the Node, and works once it is gone', async () => {
      const refused = await admin.delete<Problem>(`/nodes/${agent.nodeId}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.detail).to.match(/1 server\(s\) are placed on it/);
      expect((await admin.delete(`/servers/${serverId}`)).status).to.equal(202);
      await waitFor(async () => (await admin.get(`/servers/${serverId}`)).status === 404, { what: 'the server to be removed' });
      expect((await admin.delete(`/nodes/${agent.nodeId}`)).status).to.equal(204);
    });
  });

  describe('permissions', () => {
    it('without nodes.manage: cannot create, sees no Nodes, and unseen Nodes are not found', async () => {
      const { node } = (await admin.post<EnrollmentIssued>('/nodes', { name: 'hidden' })).body;
      const { client } = await createReadyUser(t, admin, 'plain-user');
      expect((await client.post('/nodes', { name: 'nope' })).status).to.equal(403);
      expect((await client.get<NodePage>('/nodes')).body.items).to.deep.equal([]);
      expect((await client.get(`/nodes/${node.id}`)).status).to.equal(404);
      const patch = await client.patch(`/nodes/${node.id}`, { address: '' });
      expect(patch.status).to.equal(404);
      const audit = await admin.get<AuditEventPage>(`/audit-events?targetId=${node.id}&action=node.update`);
      expect(audit.body.items[0].outcome).to.equal('DENIED');
    });

    it('a user with the global permission nodes.manage manages Nodes', async () => {
      const { client, userId } = await createReadyUser(t, admin, 'node-manager');
      await admin.patch(`/users/${userId}`, { globalPermissions: ['nodes.manage'] });
      const created = await client.post<EnrollmentIssued>('/nodes', { name: 'managed' });
      expect(created.status).to.equal(201);
      expect((await client.post(`/nodes/${created.body.node.id}/disable`)).status).to.equal(200);
    });
  });
});
