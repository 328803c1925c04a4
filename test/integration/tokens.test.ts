import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiTokenPage, AuditEventPage, CreatedApiToken, RolePage, Team, TeamPage, User } from '../support/api-types.js';
import { simcraft, smallResources } from '../support/fixture-world.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

describe('API tokens', () => {
  let t: TestController;
  let admin: ApiClient;
  let adminId: string;
  let bob: ApiClient;
  before(async () => {
    t = await startTestController();
    ({ admin, adminId } = await setupAdmin(t));
    ({ client: bob } = await createReadyUser(t, admin, 'bob'));
  });
  after(async () => t.dispose());

  let created: CreatedApiToken;
  it('creates a token (201): cairn_pat_ + at least 32 base62 characters, shown once', async () => {
    const res = await bob.post<CreatedApiToken>('/me/tokens', { name: 'ci' });
    expect(res.status, res.text).to.equal(201);
    created = res.body;
    expect(created.token).to.match(/^cairn_pat_[0-9A-Za-z]{32,}$/);
    expect(created).to.include({ name: 'ci' });
    expect(created.id).to.match(/^[0-9a-f-]{36}$/);
    expect(created).not.to.have.property('expiresAt');
    expect(created).not.to.have.property('hash');
  });

  it('authenticates with Authorization: Bearer as its owner', async () => {
    const me = await t.api.withToken(created.token).get<User>('/me');
    expect(me.status, me.text).to.equal(200);
    expect(me.body.username).to.equal('bob');
    // The scheme name is case-insensitive.
    expect((await t.api.get('/me', { headers: { authorization: `bearer ${created.token}` } })).status).to.equal(200);
  });

  it('never lists the secret (nor its hash)', async () => {
    const list = await bob.get<ApiTokenPage>('/me/tokens');
    expect(list.status).to.equal(200);
    expect(list.body.items).to.have.length(1);
    expect(list.body.items[0]).to.include({ id: created.id, name: 'ci' });
    expect(list.body.items[0]).to.have.property('lastUsedAt');
    expect(list.text).not.to.include(created.token);
    expect(list.text).not.to.include(created.token.slice('cairn_pat_'.length));
    expect(Object.keys(list.body.items[0]).sort()).to.deep.equal(['createdAt', 'id', 'lastUsedAt', 'name']);
  });

  it('lists only the caller\'s own tokens', async () => {
    const mine = await admin.get<ApiTokenPage>('/me/tokens');
    expect(mine.body.items.map((x) => x.id)).not.to.include(created.id);
  });

  it('validates the body: name 1..100, expiresAt a future date-time', async () => {
    expectProblem(await bob.post('/me/tokens', { name: '' }), 400, 'invalid_request', 'body.name');
    expectProblem(await bob.post('/me/tokens', { name: 'x'.repeat(101) }), 400, 'invalid_request', 'body.name');
    expectProblem(await bob.post('/me/tokens', {}), 400, 'invalid_request', 'body.name');
    for (const name of ['ci\u0000x', 'line\nbreak', 'esc\u001b[31m', 'del\u007f']) {
      expectProblem(await bob.post('/me/tokens', { name }), 400, 'invalid_request', 'body.name');
    }
    expectProblem(await bob.post('/me/tokens', { name: 'x', expiresAt: 'tomorrow' }), 400, 'invalid_request', 'body.expiresAt');
    expectProblem(await bob.post('/me/tokens', { name: 'x', expiresAt: new Date(t.clock.now().getTime() - 1000).toISOString() }), 400, 'invalid_request', 'body.expiresAt');
  });

  it('ends the token it signs out with (POST /auth/logout with a bearer token), and only that one', async () => {
    const leaving = (await bob.post<CreatedApiToken>('/me/tokens', { name: 'leaving' })).body;
    const staying = (await bob.post<CreatedApiToken>('/me/tokens', { name: 'staying' })).body;
    expect((await t.api.withToken(leaving.token).post('/auth/logout')).status).to.equal(204);
    expectProblem(await t.api.withToken(leaving.token).get('/me'), 401, 'unauthenticated');
    expect((await t.api.withToken(staying.token).get('/me')).status).to.equal(200);
    const names = (await bob.get<ApiTokenPage>('/me/tokens')).body.items.map((x) => x.name);
    expect(names).to.include('staying').and.not.include('leaving');
  });

  it('cannot be revoked by another user (404), is revoked by its owner (204), then answers 401', async () => {
    const other = await createReadyUser(t, admin, 'mallory');
    expectProblem(await other.client.delete(`/me/tokens/${created.id}`), 404, 'not_found');
    expect((await t.api.withToken(created.token).get('/me')).status).to.equal(200);
    const res = await bob.delete(`/me/tokens/${created.id}`);
    expect(res.status, res.text).to.equal(204);
    expect(res.text).to.equal('');
    expectProblem(await t.api.withToken(created.token).get('/me'), 401, 'unauthenticated');
    expectProblem(await bob.delete(`/me/tokens/${created.id}`), 404, 'not_found');
    expectProblem(await bob.delete('/me/tokens/not-a-uuid'), 400, 'invalid_request', 'path.tokenId');
  });

  it('stops working at expiresAt (401)', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    const res = await bob.post<CreatedApiToken>('/me/tokens', { name: 'short-lived', expiresAt });
    expect(res.status).to.equal(201);
    expect(res.body.expiresAt).to.equal(expiresAt);
    const client = t.api.withToken(res.body.token);
    expect((await client.get('/me')).status).to.equal(200);
    t.clock.advance(3599_000);
    expect((await client.get('/me')).status).to.equal(200);
    t.clock.advance(1000);
    expectProblem(await client.get('/me'), 401, 'unauthenticated');
  });

  it('acts as its owner with its owner\'s permissions, and is audited as API_TOKEN', async () => {
    const token = (await bob.post<CreatedApiToken>('/me/tokens', { name: 'perm' })).body.token;
    const client = t.api.withToken(token);
    expectProblem(await client.post('/teams', { name: 'nope' }), 403, 'forbidden');
    const adminToken = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'admin-ci' })).body.token;
    const res = await t.api.withToken(adminToken).post<Team>('/teams', { name: 'made-by-token' });
    expect(res.status).to.equal(201);
    const events = await admin.get<AuditEventPage>(`/audit-events?action=team.create&targetId=${res.body.id}`);
    expect(events.body.items).to.have.length(1);
    expect(events.body.items[0]).to.include({ actorKind: 'API_TOKEN', outcome: 'SUCCESS' });
    const denied = await admin.get<AuditEventPage>('/audit-events?action=team.create&outcome=DENIED');
    expect(denied.body.items[0]).to.include({ actorKind: 'API_TOKEN' });
    expect(denied.text).not.to.include(token);
  });

  it('stops working when its owner is deleted', async () => {
    const carol = await createReadyUser(t, admin, 'carol');
    const token = (await carol.client.post<CreatedApiToken>('/me/tokens', { name: 'c' })).body.token;
    expect((await t.api.withToken(token).get('/me')).status).to.equal(200);
    expect((await admin.delete(`/users/${carol.userId}`)).status).to.equal(204);
    expectProblem(await t.api.withToken(token).get('/me'), 401, 'unauthenticated');
  });
  it('a global administrator\'s scoped token without teamIds acts and lists only in the teams the administrator is a member of', async () => {
    const [mine, other] = await Promise.all(['Admin member', 'Admin outsider'].map(async (name) => (await admin.post<Team>('/teams', { name })).body));
    const viewer = (await admin.get<RolePage>('/roles?limit=200')).body.items.find((r) => r.name === 'viewer')!;
    expect((await admin.put(`/teams/${mine.id}/members/${adminId}`, { roleIds: [viewer.id] })).status).to.equal(200);
    const token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'scoped-admin', permissions: ['servers.read', 'servers.create'] })).body.token;
    const scoped = t.api.withToken(token);
    const teams = await scoped.get<TeamPage>('/teams?limit=200');
    expect(teams.body.items.map((x) => x.id)).to.deep.equal([mine.id]);
    const create = (teamId: string) => scoped.post('/servers', { name: `s-${teamId.slice(-6)}`, teamId, software: simcraft, resources: smallResources });
    expectProblem(await create(other.id), 403, 'forbidden', 'scope does not include servers.create');
    // In its team the scope lets it through to placement (no Node here), which the scope check would have stopped.
    expect((await create(mine.id)).status).not.to.equal(403);
  });

  it('GET /me/tokens by a scoped token lists only that token, not its owner\'s others', async () => {
    const created = (await bob.post<CreatedApiToken>('/me/tokens', { name: 'narrow', permissions: ['servers.read'] })).body;
    const scopedList = await t.api.withToken(created.token).get<ApiTokenPage>('/me/tokens?limit=100');
    expect(scopedList.status, scopedList.text).to.equal(200);
    expect(scopedList.body.items.map((x) => x.id)).to.deep.equal([created.id]);
    expect((await bob.get<ApiTokenPage>('/me/tokens?limit=100')).body.items.length).to.be.greaterThan(1);
  });
});
