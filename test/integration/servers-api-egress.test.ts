import { expect } from 'chai';
import type { AuditEventPage, RolePage, ServerDetail } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { ServersRig, simcraft, small } from '../support/servers-rig.js';

describe('servers API — network.egressAllow: where a game may connect beyond the internet', function () {
  this.timeout(30_000);
  const rig = ServersRig.register();
  const { teams, create, ready } = rig;
  /** Holds every permission in team a, but is no global administrator. */
  let teamAdmin: ApiClient;

  before(async () => {
    const roles = new Map((await rig.admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const { client, userId } = await createReadyUser(rig.t, rig.admin, 'tara');
    expect((await rig.admin.put(`/teams/${teams.a}/members/${userId}`, { roleIds: [roles.get('admin')] })).status).to.equal(200);
    teamAdmin = client;
  });

  const desiredOnNode = (id: string) => rig.big.desiredOf(id)?.egressAllow;

  it('a global administrator sets it at create and changes it with PATCH; it is shown, carried to the Node and audited', async () => {
    const created = await create(teams.a, 'egress-create', { network: { egressAllow: ['10.213.77.2:7001', '192.168.4.0/24'] } });
    expect(created.network).to.deep.equal({ egressAllow: ['10.213.77.2:7001', '192.168.4.0/24'] });
    await ready(created.id);
    expect(desiredOnNode(created.id)).to.deep.equal(['10.213.77.2:7001', '192.168.4.0/24']);

    const res = await rig.admin.patch<ServerDetail>(`/servers/${created.id}`, { network: { egressAllow: ['10.1.0.0/16'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.network).to.deep.equal({ egressAllow: ['10.1.0.0/16'] });
    expect((await rig.admin.get<ServerDetail>(`/servers/${created.id}`)).body.network).to.deep.equal({ egressAllow: ['10.1.0.0/16'] });
    await ready(created.id);
    expect(desiredOnNode(created.id)).to.deep.equal(['10.1.0.0/16']);
    const audit = await rig.admin.get<AuditEventPage>(`/audit-events?action=server.update&targetId=${created.id}`);
    expect(audit.body.items[0].details).to.deep.include({ network: { egressAllow: ['10.1.0.0/16'] } });

    const cleared = await rig.admin.patch<ServerDetail>(`/servers/${created.id}`, { network: { egressAllow: [] } });
    expect(cleared.status, cleared.text).to.equal(200);
    expect(cleared.body).not.to.have.property('network');
    await ready(created.id);
    expect(desiredOnNode(created.id)).to.deep.equal([]);
  });

  it('refuses an entry that is not CIDR[:PORT] naming it, and more than 32 entries', async () => {
    const server = await create(teams.a, 'egress-bad');
    await ready(server.id);
    for (const bad of ['db.internal', '10.0.0.256', '10.0.0.0/33', '10.0.0.1:0', '10.0.0.1:65536', ' 10.0.0.1', '::1']) {
      expectProblem(await rig.admin.patch(`/servers/${server.id}`, { network: { egressAllow: ['10.0.0.1', bad] } }), 400, 'invalid_request', 'body.network.egressAllow[1]: give CIDR[:PORT]');
    }
    const many = Array.from({ length: 33 }, (_, i) => `10.0.${i}.0/24`);
    expectProblem(await rig.admin.patch(`/servers/${server.id}`, { network: { egressAllow: many } }), 400, 'invalid_request', 'body.network.egressAllow: give at most 32 items');
    expect((await rig.admin.patch(`/servers/${server.id}`, { network: { egressAllow: many.slice(0, 32) } })).status).to.equal(200);
    expectProblem(await rig.admin.post('/servers', { name: 'x', teamId: teams.a, software: simcraft, resources: small, network: { egressAllow: ['nope'] } }), 400, 'invalid_request', 'body.network.egressAllow[0]');
    expectProblem(await rig.admin.patch(`/servers/${server.id}`, { network: {} }), 400, 'invalid_request', 'body.network.egressAllow: is required');
  });

  it('only a global administrator sets or changes it; others keep it by leaving it out or sending it as it is', async () => {
    expectProblem(await teamAdmin.post('/servers', { name: 'x', teamId: teams.a, software: simcraft, resources: small, nodeId: rig.big.nodeId, network: { egressAllow: ['10.0.0.1'] } }),
      403, 'forbidden', 'body.network.egressAllow');
    const server = await create(teams.a, 'egress-kept', { network: { egressAllow: ['10.0.0.1:5432'] } });
    await ready(server.id);
    expectProblem(await teamAdmin.patch(`/servers/${server.id}`, { network: { egressAllow: ['10.0.0.0/8'] } }), 403, 'forbidden', 'body.network.egressAllow');
    expectProblem(await teamAdmin.patch(`/servers/${server.id}`, { network: { egressAllow: [] } }), 403, 'forbidden', 'body.network.egressAllow');
    const resized = await teamAdmin.patch<ServerDetail>(`/servers/${server.id}`, { resources: { ...small, cpuMillis: 200 } });
    expect(resized.status, resized.text).to.equal(200);
    expect(resized.body.network).to.deep.equal({ egressAllow: ['10.0.0.1:5432'] });
    await ready(server.id);
    const resent = await teamAdmin.patch<ServerDetail>(`/servers/${server.id}`, { resources: small, network: { egressAllow: ['10.0.0.1:5432'] } });
    expect(resent.status, resent.text).to.equal(200);
    await ready(server.id);
    expect(desiredOnNode(server.id)).to.deep.equal(['10.0.0.1:5432']);
    const plain = await teamAdmin.post<ServerDetail>('/servers', { name: 'egress-none', teamId: teams.a, software: simcraft, resources: small, nodeId: rig.big.nodeId });
    expect(plain.status, plain.text).to.equal(201);
    expect(plain.body).not.to.have.property('network');
  });
});
