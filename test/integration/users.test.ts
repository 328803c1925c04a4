import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { CreatedApiToken, MembershipPage, Team, User, UserPage } from '../support/api-types.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const someId = '01900000-0000-7000-8000-000000000000';
const newUser = (username: string, extra: Record<string, unknown> = {}) => ({
  username, email: `${username}@example.com`, displayName: username.toUpperCase(), password: 'first-password-1', ...extra,
});

describe('users', () => {
  let t: TestController;
  let admin: ApiClient;
  let adminId: string;
  let gina: { client: ApiClient; userId: string };
  before(async () => {
    t = await startTestController();
    ({ admin, adminId } = await setupAdmin(t));
    gina = await createReadyUser(t, admin, 'gina');
  });
  after(async () => t.dispose());

  it('creates a user (201) who must change the password', async () => {
    const res = await admin.post<User>('/users', newUser('hank', { globalPermissions: ['nodes.manage'] }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ username: 'hank', email: 'hank@example.com', displayName: 'HANK', globalAdmin: false, passwordChangeRequired: true });
    expect(res.body.globalPermissions).to.deep.equal(['nodes.manage']);
    expect(res.text).not.to.include('first-password-1');
    expect(res.body).not.to.have.property('passwordHash');
  });

  it('refuses duplicates (409 conflict), usernames and emails regardless of case', async () => {
    expectProblem(await admin.post('/users', newUser('HANK', { email: 'other@example.com' })), 409, 'conflict', 'username');
    expectProblem(await admin.post('/users', newUser('hank2', { email: 'Hank@Example.com' })), 409, 'conflict', 'email');
  });

  it('validates fields with 400 invalid_request naming the field', async () => {
    expectProblem(await admin.post('/users', newUser('bad name')), 400, 'invalid_request', 'body.username');
    expectProblem(await admin.post('/users', newUser('')), 400, 'invalid_request', 'body.username');
    expectProblem(await admin.post('/users', newUser('x'.repeat(65))), 400, 'invalid_request', 'body.username');
    expectProblem(await admin.post('/users', newUser('ivan', { email: 'nope' })), 400, 'invalid_request', 'body.email');
    expectProblem(await admin.post('/users', newUser('ivan', { password: 'short' })), 400, 'invalid_request', 'body.password');
    expectProblem(await admin.post('/users', newUser('ivan', { displayName: '' })), 400, 'invalid_request', 'body.displayName');
    expectProblem(await admin.post('/users', newUser('ivan', { globalPermissions: ['servers.read'] })), 400, 'invalid_request', 'body.globalPermissions');
    expectProblem(await admin.post('/users', newUser('ivan', { globalPermissions: ['nodes.manage', 'nodes.manage'] })), 400, 'invalid_request', 'body.globalPermissions');
    expectProblem(await admin.post('/users', newUser('ivan', { role: 'admin' })), 400, 'invalid_request', 'body.role');
    expectProblem(await admin.post('/users', newUser('ivan', { globalAdmin: 'yes' })), 400, 'invalid_request', 'body.globalAdmin');
  });

  it('non-administrators get 403 forbidden on administrator operations', async () => {
    expectProblem(await gina.client.post('/users', newUser('ivan')), 403, 'forbidden');
    expectProblem(await gina.client.get('/users'), 403, 'forbidden');
    expectProblem(await gina.client.delete(`/users/${gina.userId}`), 403, 'forbidden');
    expectProblem(await gina.client.patch(`/users/${gina.userId}`, { globalAdmin: true }), 403, 'forbidden');
    expectProblem(await gina.client.patch(`/users/${gina.userId}`, { globalPermissions: ['nodes.manage'] }), 403, 'forbidden');
  });

  it('GET /users/{id}: administrators see anyone, a user only itself (others are 404)', async () => {
    expect((await admin.get<User>(`/users/${gina.userId}`)).body.username).to.equal('gina');
    expect((await gina.client.get<User>(`/users/${gina.userId}`)).body.username).to.equal('gina');
    expectProblem(await gina.client.get(`/users/${adminId}`), 404, 'not_found');
    expectProblem(await admin.get(`/users/${someId}`), 404, 'not_found');
    expectProblem(await admin.get('/users/not-a-uuid'), 400, 'invalid_request', 'path.userId');
  });

  it('PATCH: a user changes its own email and display name; others are 404 to it', async () => {
    const res = await gina.client.patch<User>(`/users/${gina.userId}`, { displayName: 'Gina G', email: 'gina.g@example.com' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ displayName: 'Gina G', email: 'gina.g@example.com' });
    expect((await gina.client.get<User>('/me')).body.email).to.equal('gina.g@example.com');
    expectProblem(await gina.client.patch(`/users/${adminId}`, { displayName: 'pwned' }), 404, 'not_found');
    expectProblem(await gina.client.patch(`/users/${gina.userId}`, {}), 400, 'invalid_request');
    expectProblem(await admin.patch(`/users/${gina.userId}`, { email: 'ADMIN@example.com' }), 409, 'conflict', 'email');
  });

  it('administrators grant and withdraw administration; the last global administrator stays (409)', async () => {
    expectProblem(await admin.patch(`/users/${adminId}`, { globalAdmin: false }), 409, 'conflict');
    expectProblem(await admin.delete(`/users/${adminId}`), 409, 'conflict');
    const promoted = await admin.patch<User>(`/users/${gina.userId}`, { globalAdmin: true });
    expect(promoted.body.globalAdmin).to.equal(true);
    expect((await gina.client.get('/users')).status).to.equal(200);
    const demoted = await admin.patch<User>(`/users/${gina.userId}`, { globalAdmin: false });
    expect(demoted.body.globalAdmin).to.equal(false);
    expectProblem(await gina.client.get('/users'), 403, 'forbidden');
  });

  it('lists users in creation order (administrators)', async () => {
    const list = await admin.get<UserPage>('/users');
    expect(list.status).to.equal(200);
    expect(list.body.items.map((u) => u.username)).to.deep.equal(['admin', 'gina', 'hank']);
    expect(list.text).not.to.include('passwordHash');
  });

  it('DELETE removes the user (204) with its sessions, tokens and memberships; then 404', async () => {
    const jack = await createReadyUser(t, admin, 'jack');
    const token = (await jack.client.post<CreatedApiToken>('/me/tokens', { name: 't' })).body.token;
    const team = (await admin.post<Team>('/teams', { name: 'jacks-team' })).body;
    expect((await admin.put(`/teams/${team.id}/members/${jack.userId}`, { roleIds: [] })).status).to.equal(200);
    const res = await admin.delete(`/users/${jack.userId}`);
    expect(res.status, res.text).to.equal(204);
    expectProblem(await jack.client.get('/me'), 401, 'unauthenticated');
    expectProblem(await t.api.withToken(token).get('/me'), 401, 'unauthenticated');
    expect((await admin.get<MembershipPage>(`/teams/${team.id}/members`)).body.items).to.deep.equal([]);
    expectProblem(await admin.get(`/users/${jack.userId}`), 404, 'not_found');
    expectProblem(await admin.delete(`/users/${jack.userId}`), 404, 'not_found');
    expectProblem(await t.api.post('/auth/login', { username: 'jack', password: 'second-password-2' }), 401, 'invalid_credentials');
    // The name is free again.
    expect((await admin.post('/users', newUser('jack'))).status).to.equal(201);
  });

  it('a user created by an administrator can sign in and must change the password first', async () => {
    const login = await t.api.post('/auth/login', { username: 'hank', password: 'first-password-1' });
    expect(login.status).to.equal(200);
    const hank = t.api.withCookie(sessionCookieFrom(login));
    expectProblem(await hank.get('/teams'), 403, 'password_change_required');
  });
});
