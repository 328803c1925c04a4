import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, CreatedApiToken, OpenApiDocument, PasswordResetIssued, User } from '../support/api-types.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const hour = 3600 * 1000;
const someId = '01900000-0000-7000-8000-000000000000';

describe('password change required', () => {
  let t: TestController;
  let admin: ApiClient;
  let erin: ApiClient;
  let erinId: string;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    const created = await admin.post<User>('/users', { username: 'erin', email: 'erin@example.com', displayName: 'Erin', password: 'initial-pass-1' });
    expect(created.status).to.equal(201);
    expect(created.body.passwordChangeRequired).to.equal(true);
    erinId = created.body.id;
    erin = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'erin', password: 'initial-pass-1' })));
  });
  after(async () => t.dispose());

  it('GET /me works and shows passwordChangeRequired: true', async () => {
    const me = await erin.get<User>('/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ username: 'erin', passwordChangeRequired: true });
  });

  it('every other signed-in endpoint of every family answers 403 password_change_required', async () => {
    const doc = (await t.api.get<OpenApiDocument>('/api/v1/openapi.json')).body;
    const allowed = new Set(['GET /me', 'POST /me/password', 'POST /auth/logout']);
    const checked: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const rel = path.replace(/^\/api\/v1/, '');
        const key = `${method.toUpperCase()} ${rel}`;
        if (allowed.has(key) || op.security.length === 0) continue;
        const url = rel.replace(/\{\w+\}/g, someId);
        // A valid body, so only the rule can be the reason for the refusal.
        const body = method === 'get' || method === 'delete' ? undefined : { name: 'x', roleIds: [], permissions: [] };
        const res = await erin.request(method.toUpperCase(), url, body === undefined ? {} : { body });
        expectProblem(res, 403, 'password_change_required');
        checked.push(key);
      }
    }
    // The foundation's families: me, users, teams, memberships, roles, audit, network.
    for (const family of ['/me/tokens', '/users', '/teams', '/teams/{teamId}/members/{userId}', '/roles', '/audit-events', '/network']) {
      expect(checked.some((k) => k.endsWith(' ' + family)), family).to.equal(true);
    }
    expect(checked.length).to.be.at.least(20);
  });

  it('also holds for requests that would otherwise be refused for another reason', async () => {
    // An admin-only operation answers the password rule first: it never tells the user more.
    expectProblem(await erin.post('/users', {}), 403, 'password_change_required');
  });

  it('POST /me/password validates: wrong current password, same password, too short', async () => {
    expectProblem(await erin.post('/me/password', { currentPassword: 'not-it-at-all', newPassword: 'brand-new-pass-1' }), 400, 'invalid_request', 'body.currentPassword');
    expectProblem(await erin.post('/me/password', { currentPassword: 'initial-pass-1', newPassword: 'initial-pass-1' }), 400, 'invalid_request', 'body.newPassword');
    expectProblem(await erin.post('/me/password', { currentPassword: 'initial-pass-1', newPassword: 'short' }), 400, 'invalid_request', 'body.newPassword');
    expectProblem(await erin.post('/me/password', { currentPassword: 'initial-pass-1', newPassword: 'x'.repeat(257) }), 400, 'invalid_request', 'body.newPassword');
    expectProblem(await erin.post('/me/password', { newPassword: 'brand-new-pass-1' }), 400, 'invalid_request', 'body.currentPassword');
  });

  it('POST /auth/logout works while the change is required', async () => {
    const other = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'erin', password: 'initial-pass-1' })));
    expect((await other.post('/auth/logout')).status).to.equal(204);
    expectProblem(await other.get('/me'), 401, 'unauthenticated');
  });

  it('changing the password (204) clears the flag, keeps this session and ends the others', async () => {
    const other = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'erin', password: 'initial-pass-1' })));
    const res = await erin.post('/me/password', { currentPassword: 'initial-pass-1', newPassword: 'brand-new-pass-1' });
    expect(res.status, res.text).to.equal(204);
    const me = await erin.get<User>('/me');
    expect(me.body.passwordChangeRequired).to.equal(false);
    expect((await erin.get('/roles')).status).to.equal(200);
    expectProblem(await other.get('/me'), 401, 'unauthenticated');
    expectProblem(await t.api.post('/auth/login', { username: 'erin', password: 'initial-pass-1' }), 401, 'invalid_credentials');
    expect((await t.api.post('/auth/login', { username: 'erin', password: 'brand-new-pass-1' })).status).to.equal(200);
  });

  it('audits the change without the passwords', async () => {
    const events = await admin.get<AuditEventPage>(`/audit-events?action=user.password_change&targetId=${erinId}`);
    expect(events.body.items.map((e) => e.outcome)).to.include.members(['SUCCESS', 'FAILED']);
    for (const secret of ['initial-pass-1', 'brand-new-pass-1', 'not-it-at-all']) expect(events.text).not.to.include(secret);
  });
});

describe('password reset', () => {
  let t: TestController;
  let admin: ApiClient;
  let frank: { client: ApiClient; userId: string };
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    frank = await createReadyUser(t, admin, 'frank');
  });
  after(async () => t.dispose());

  it('only global administrators issue a reset (403 otherwise); unknown users are 404', async () => {
    expectProblem(await frank.client.post(`/users/${frank.userId}/password-reset`), 403, 'forbidden');
    expectProblem(await admin.post(`/users/${someId}/password-reset`), 404, 'not_found');
  });

  let issued: PasswordResetIssued;
  it('issues a one-time secret valid for 24 hours', async () => {
    const res = await admin.post<PasswordResetIssued>(`/users/${frank.userId}/password-reset`);
    expect(res.status, res.text).to.equal(200);
    issued = res.body;
    expect(issued.token).to.be.a('string').with.length.at.least(32);
    const validMs = Date.parse(issued.expiresAt) - t.clock.now().getTime();
    expect(validMs).to.be.within(24 * hour - 60_000, 24 * hour);
  });

  it('refuses an unknown secret with 400 invalid_token', async () => {
    expectProblem(await t.api.post('/auth/password-reset', { token: 'not-a-real-token', newPassword: 'reset-pass-123' }), 400, 'invalid_token');
    expectProblem(await t.api.post('/auth/password-reset', { token: issued.token, newPassword: 'short' }), 400, 'invalid_request', 'body.newPassword');
  });

  it('redeems once (204): sets the password and ends every session and API token of the user', async () => {
    const token = (await frank.client.post<CreatedApiToken>('/me/tokens', { name: 'before-reset' })).body.token;
    expect((await t.api.withToken(token).get('/me')).status).to.equal(200);
    const res = await t.api.post('/auth/password-reset', { token: issued.token, newPassword: 'reset-pass-123' });
    expect(res.status, res.text).to.equal(204);
    expectProblem(await frank.client.get('/me'), 401, 'unauthenticated');
    expectProblem(await t.api.withToken(token).get('/me'), 401, 'unauthenticated');
    expectProblem(await t.api.post('/auth/login', { username: 'frank', password: 'second-password-2' }), 401, 'invalid_credentials');
    const login = await t.api.post<User>('/auth/login', { username: 'frank', password: 'reset-pass-123' });
    expect(login.status).to.equal(200);
    expect(login.body.passwordChangeRequired).to.equal(false);
    frank.client = t.api.withCookie(sessionCookieFrom(login));
  });

  it('refuses a reused secret with 400 invalid_token', async () => {
    expectProblem(await t.api.post('/auth/password-reset', { token: issued.token, newPassword: 'reset-again-456' }), 400, 'invalid_token');
  });

  it('works just before 24 hours and refuses at 24 hours (invalid_token)', async () => {
    const early = (await admin.post<PasswordResetIssued>(`/users/${frank.userId}/password-reset`)).body.token;
    const late = (await admin.post<PasswordResetIssued>(`/users/${frank.userId}/password-reset`)).body.token;
    t.clock.advance(24 * hour - 60_000);
    expect((await t.api.post('/auth/password-reset', { token: early, newPassword: 'reset-pass-789' })).status).to.equal(204);
    t.clock.advance(60_000);
    expectProblem(await t.api.post('/auth/password-reset', { token: late, newPassword: 'reset-pass-000' }), 400, 'invalid_token');
  });

  it('audits issue and redemption without the secret or the new password', async () => {
    // The clock moved a day: the administrator's session has lapsed (idle), so sign in again.
    admin = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'admin', password: 'correct-horse-battery' })));
    const events = await admin.get<AuditEventPage>(`/audit-events?targetId=${frank.userId}`);
    const actions = events.body.items.map((e) => `${e.action}:${e.outcome}`);
    expect(actions).to.include.members(['user.password_reset_issue:SUCCESS', 'user.password_reset_redeem:SUCCESS']);
    const all = await admin.get<AuditEventPage>('/audit-events?limit=200');
    for (const secret of [issued.token, 'reset-pass-123', 'reset-pass-789', 'reset-pass-000']) expect(all.text).not.to.include(secret);
  });
});

describe('changing a password: other sessions end always, API tokens when asked (revokeTokens)', () => {
  let t: TestController;
  let admin: ApiClient;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('without revokeTokens the tokens keep working; with revokeTokens: true they end, this session stays, and the audit says so', async () => {
    const gina = await createReadyUser(t, admin, 'gina');
    const token = (await gina.client.post<CreatedApiToken>('/me/tokens', { name: 'ci' })).body.token;
    const other = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'gina', password: 'second-password-2' })));
    expect((await gina.client.post('/me/password', { currentPassword: 'second-password-2', newPassword: 'third-password-3' })).status).to.equal(204);
    expectProblem(await other.get('/me'), 401, 'unauthenticated');
    expect((await t.api.withToken(token).get('/me')).status).to.equal(200);
    const res = await gina.client.post('/me/password', { currentPassword: 'third-password-3', newPassword: 'fourth-password-4', revokeTokens: true });
    expect(res.status, res.text).to.equal(204);
    expectProblem(await t.api.withToken(token).get('/me'), 401, 'unauthenticated');
    expect((await gina.client.get('/me')).status).to.equal(200);
    const events = (await admin.get<AuditEventPage>(`/audit-events?action=user.password_change&targetId=${gina.userId}`)).body.items;
    expect(events.some((e) => e.details.tokensRevoked === true)).to.equal(true);
    expectProblem(await gina.client.post('/me/password', { currentPassword: 'fourth-password-4', newPassword: 'fifth-password-5', revokeTokens: 'yes' }), 400, 'invalid_request', 'revokeTokens');
  });
});
