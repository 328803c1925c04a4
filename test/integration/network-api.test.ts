import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { AuditEventPage, Network, NetworkRoutes, Node, RolePage, ServerDetail, ServerPage, Team, TeamDetail, TeamPage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const simproxy = { template: 'simproxy', version: '3.4.0' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };

describe('network API: the network record, the proxy, members and routes (fake Agents)', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let viewer: ApiClient;
  let big: FakeAgent;
  let little: FakeAgent;
  let teamA: string;
  let teamB: string;
  let proxyId: string;

  const create = async (name: string, teamId: string, extra: Record<string, unknown> = {}) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: big.nodeId, ...extra });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', `${name} READY`, 5_000);
    return res.body;
  };

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    teamA = (await admin.post<Team>('/teams', { name: 'team-a' })).body.id;
    teamB = (await admin.post<Team>('/teams', { name: 'team-b' })).body.id;
    big = await FakeAgent.connect(admin, t.controller.grpcPort, 'big');
    little = await FakeAgent.connect(admin, t.controller.grpcPort, 'little');
    for (const agent of [big, little]) {
      await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    }
    const roles = new Map((await admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const vera = await createReadyUser(t, admin, 'vera');
    await admin.put(`/teams/${teamA}/members/${vera.userId}`, { roleIds: [roles.get('viewer')] });
    viewer = vera.client;
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    big?.stop();
    little?.stop();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
    await t.dispose();
  });

  it('GET /network is for anyone signed in; changing it and creating the proxy are for global administrators', async () => {
    const network = await viewer.get('/network');
    expect(network.status, network.text).to.equal(200);
    expect(network.body).to.not.have.property('proxyServerId');
    expectProblem(await viewer.patch('/network', { name: 'Mine' }), 403, 'forbidden');
    expectProblem(await viewer.post('/network/proxy', { software: simproxy, resources: small }), 403, 'forbidden');
    const denied = await admin.get<AuditEventPage>('/audit-events?action=network.proxy.create&outcome=DENIED');
    expect(denied.body.items).to.have.length(1);
  });

  it('new game servers never take the network port; the proxy is refused on a host where the port is taken', async () => {
    const game = await create('first', teamA);
    expect(game.gamePort).to.not.equal((await admin.get<Network>('/network')).body.port);
    expect((await admin.patch('/network', { port: game.gamePort })).status).to.equal(200);
    expectProblem(await admin.post('/network/proxy', { software: simproxy, resources: small, nodeId: big.nodeId }), 409, 'conflict', `Port ${game.gamePort}`);
    expectProblem(await admin.post('/network/proxy', { software: simcraft, resources: small }), 400, 'invalid_request', 'body.software.template');
  });

  it('POST /network/proxy places the proxy where the port is free, in the team `network` made for it, and audits it', async () => {
    const res = await admin.post<ServerDetail>('/network/proxy', { software: simproxy, resources: small });
    expect(res.status, res.text).to.equal(201);
    proxyId = res.body.id;
    const network = (await admin.get<Network>('/network')).body;
    expect(res.body).to.include({ kind: 'PROXY', nodeId: little.nodeId, gamePort: network.port, inNetwork: false });
    expect(network.proxyServerId).to.equal(proxyId);
    const team = (await admin.get<TeamDetail>(`/teams/${res.body.teamId}`)).body;
    expect(team).to.include({ name: 'network', internal: true });
    // Only the team Cairn made is marked: the teams administrators make are not.
    const teams = (await admin.get<TeamPage>('/teams')).body.items;
    expect(teams.filter((t) => t.internal).map((t) => t.id)).to.deep.equal([team.id]);
    const audit = (await admin.get<AuditEventPage>(`/audit-events?action=network.proxy.create&targetId=${proxyId}`)).body.items;
    expect(audit[0]).to.deep.include({ outcome: 'SUCCESS', targetKind: 'server' });
    expect(audit[0].details).to.include({ teamCreated: true, nodeId: little.nodeId, gamePort: network.port });
    expectProblem(await admin.post('/network/proxy', { software: simproxy, resources: small, teamId: teamA }), 409, 'conflict');
    const listed = (await admin.get<ServerPage>('/servers?kind=PROXY')).body.items.map((s) => s.id);
    expect(listed).to.deep.equal([proxyId]);
  });

  it('routes list running members lobby first; the proxy is told them with the secret, members the secret only', async () => {
    const a = await create('alpha', teamA, { inNetwork: true });
    const b = await create('bravo', teamB, { inNetwork: true });
    const outsider = await create('outsider', teamA);
    for (const s of [a, b, outsider]) await admin.post(`/servers/${s.id}/start`);
    await waitFor(async () => (await admin.get<NetworkRoutes>('/network/routes')).body.items.length === 2 || undefined, { what: 'two routes' });
    expect((await admin.get<NetworkRoutes>('/network/routes')).body.items.map((r) => r.name)).to.deep.equal(['alpha', 'bravo']);
    expect((await admin.get<ServerPage>('/servers?inNetwork=true')).body.items.map((s) => s.name)).to.deep.equal(['alpha', 'bravo']);
    expect((await admin.patch<Network>('/network', { lobbyServerId: b.id })).body.lobbyServerId).to.equal(b.id);
    const items = (await admin.get<NetworkRoutes>('/network/routes')).body.items;
    expect(items.map((r) => r.name)).to.deep.equal(['bravo', 'alpha']);
    expect(items[0]).to.deep.equal({ serverId: b.id, name: 'bravo', address: '127.0.0.1', port: b.gamePort });
    // A caller sees the routes of the servers it can read.
    expect((await viewer.get<NetworkRoutes>('/network/routes')).body.items.map((r) => r.name)).to.deep.equal(['alpha']);

    const told = await waitFor(() => {
      const network = little.desiredOf(proxyId)?.network;
      return network?.routes.length === 2 && network.lobbyServerId === b.id ? network : undefined;
    }, { what: 'the proxy told of the routes and the lobby' });
    expect(told.forwardingSecret).to.match(/^[A-Za-z0-9]{40}$/);
    expect(big.desiredOf(a.id)?.network).to.deep.equal({ routes: [], lobbyServerId: '', forwardingSecret: told.forwardingSecret });
    expect(big.desiredOf(outsider.id)?.network).to.equal(null);
    const generation = (await admin.get<ServerDetail>(`/servers/${proxyId}`)).body.generation;
    expect(generation).to.equal(1);

    expect((await admin.patch('/network', { lobbyServerId: null })).body).to.not.have.property('lobbyServerId');
  });

  it('PATCH /network port moves the proxy (a new generation), unless the port is taken on its host', async () => {
    const taken = await admin.post<ServerDetail>('/servers', { name: 'on-little', teamId: teamA, software: simcraft, resources: small, nodeId: little.nodeId });
    expectProblem(await admin.patch('/network', { port: taken.body.gamePort }), 409, 'conflict', 'proxy');
    const res = await admin.patch<Network>('/network', { port: 40123 });
    expect(res.status, res.text).to.equal(200);
    const proxy = (await admin.get<ServerDetail>(`/servers/${proxyId}`)).body;
    expect(proxy).to.include({ gamePort: 40123, generation: 2 });
    await waitFor(() => little.desiredOf(proxyId)?.gamePort === 40123 || undefined, { what: 'the proxy told of its new port' });
  });
});
