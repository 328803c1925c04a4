import { expect } from 'chai';
import type { ApiTokenPage, CreatedApiToken, ServerDetail, ServerWatchEvent, Team } from '../support/api-types.js';
import { buildWorld, simcraft, smallResources, type World } from '../support/fixture-world.js';
import { waitForServer } from '../support/fleet.js';
import { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { openSse } from '../support/sse.js';

/**
 * Scoped API tokens: a token does what its owner may, and only with its permissions in its teams;
 * no global administration passes to it; watch streams filter by the scope and consoles refuse.
 */
describe('scoped API tokens', function () {
  this.timeout(60_000);
  let w: World;
  let otherTeamId: string;
  let otherServerId: string;
  const tokenClient = async (body: Record<string, unknown>) => {
    const res = await w.admin.post<CreatedApiToken>('/me/tokens', { name: `t-${Math.random().toString(36).slice(2, 8)}`, ...body });
    expect(res.status, res.text).to.equal(201);
    return { created: res.body, client: new ApiClient(w.t.baseUrl, { token: res.body.token }) };
  };

  before(async () => {
    w = await buildWorld();
    otherTeamId = (await w.admin.post<Team>('/teams', { name: 'Other' })).body.id;
    const other = await w.admin.post<ServerDetail>('/servers', { name: 'elsewhere', teamId: otherTeamId, software: simcraft, resources: smallResources, nodeId: w.nodeId });
    expect(other.status, other.text).to.equal(201);
    otherServerId = other.body.id;
    await waitForServer(w.admin, otherServerId, (s) => s.phase === 'READY', 'the other team\'s server READY');
  });
  after(async () => w.dispose());

  it('shows each token\'s scope, and refuses teams its owner is not in and permissions the spec does not list', async () => {
    const { created } = await tokenClient({ permissions: ['servers.read', 'servers.start'], teamIds: [w.teamId] });
    expect(created).to.deep.include({ permissions: ['servers.read', 'servers.start'], teamIds: [w.teamId] });
    const listed = (await w.admin.get<ApiTokenPage>('/me/tokens?limit=100')).body.items.find((t) => t.id === created.id);
    expect(listed).to.deep.include({ permissions: ['servers.read', 'servers.start'], teamIds: [w.teamId] });
    expect(listed).to.not.have.property('token');
    expectProblem(await w.admin.post('/me/tokens', { name: 'bad', permissions: ['servers.fly'] }), 400, 'invalid_request', 'body.permissions');
    expectProblem(await w.admin.post('/me/tokens', { name: 'bad', teamIds: ['0190a1b2-0000-7000-8000-00000000dead'] }), 400, 'invalid_request', 'body.teamIds[0]');
  });

  it('acts only within its permissions and teams: forbidden beyond them where its owner could act', async () => {
    const { client } = await tokenClient({ permissions: ['servers.read', 'servers.start', 'servers.stop'], teamIds: [w.teamId] });
    expect((await client.get<ServerDetail>(`/servers/${w.serverId}`)).status).to.equal(200);
    expect((await client.post(`/servers/${w.serverId}/start`)).status).to.equal(202);
    expectProblem(await client.get(`/servers/${w.serverId}/files?path=.`), 403, 'forbidden', 'scope does not include files.read');
    expectProblem(await client.post(`/servers/${otherServerId}/start`), 403, 'forbidden', 'scope does not include servers.start');
    const listed = (await client.get<{ items: { id: string }[] }>('/servers?limit=100')).body.items.map((s) => s.id);
    expect(listed).to.include(w.serverId);
    expect(listed).to.not.include(otherServerId);
  });

  it('never carries global administration, nor changes its own account', async () => {
    const { client } = await tokenClient({ permissions: ['servers.read'] });
    expectProblem(await client.get('/users'), 403, 'forbidden', 'scoped API token never carries global administration');
    expectProblem(await client.post('/teams', { name: 'Nope' }), 403, 'forbidden');
    expectProblem(await client.post('/me/tokens', { name: 'wider' }), 403, 'forbidden', 'scoped API token cannot change its account');
    expectProblem(await client.post('/me/password', { currentPassword: 'correct-horse-battery', newPassword: 'another-password-9' }), 403, 'forbidden');
    expect((await client.get('/me')).status).to.equal(200);
  });

  it('watch streams show only the servers its scope may read; console streams refuse without servers.console', async () => {
    const { created } = await tokenClient({ permissions: ['servers.read'], teamIds: [w.teamId] });
    const watch = await openSse<ServerWatchEvent>(`${w.t.baseUrl}/api/v1/servers/watch`, { authorization: `Bearer ${created.token}` });
    try {
      expect(watch.status).to.equal(200);
      await watch.next((e) => e.event === 'synced');
      const seen = watch.events.filter((e) => e.event === 'server').map((e) => (e.data as { id: string }).id);
      expect(seen).to.include(w.serverId);
      expect(seen).to.not.include(otherServerId);
    } finally {
      watch.close();
    }
    const console = await openSse(`${w.t.baseUrl}/api/v1/servers/${w.serverId}/console`, { authorization: `Bearer ${created.token}` });
    expect(console.status).to.equal(403);
    expect(console.problem?.detail).to.include('servers.console');
  });

  it('an unscoped token still does everything its owner may', async () => {
    const { client } = await tokenClient({});
    expect((await client.get('/users')).status).to.equal(200);
    expect((await client.get(`/servers/${otherServerId}`)).status).to.equal(200);
  });
});
