import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { Agent } from 'undici';
import type { AuditEventPage, AuthMethods, MembershipPage, OidcSetting, Problem, Role, RolePage, Team, User, UserPage } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { browseSignIn, changedIdToken, CookieJar, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { expectProblem } from '../support/problems.js';

const sessionCookieName = '__Host-cairn_session';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('single sign-on with OpenID Connect', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let op: TestOidcProvider;
  let team: Team;
  let viewer: Role;
  let operator: Role;
  let setting: Record<string, unknown>;

  /** Signs in at the provider as `sub` through the Controller; the page it lands on and a client with its session. */
  async function signIn(sub: string, jar = new CookieJar()) {
    const landed = await browseSignIn(`${t.baseUrl}/api/v1/auth/oidc/login`, t.baseUrl, sub, jar);
    const session = jar.get(t.baseUrl, sessionCookieName);
    return { landed, client: session ? t.api.withCookie(`${sessionCookieName}=${session}`) : undefined };
  }

  const me = async (client: ApiClient | undefined) => {
    const res = await client!.get<User>('/me');
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const membership = async (userId: string) =>
    (await admin.get<MembershipPage>(`/teams/${team.id}/members?limit=200`)).body.items.find((m) => m.userId === userId);
  const lastLoginEvent = async () => (await admin.get<AuditEventPage>('/audit-events?action=auth.oidc.login&limit=1')).body.items[0];

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    op = await startOidcProvider([`${t.baseUrl}/api/v1/auth/oidc/callback`]);
    team = (await admin.post<Team>('/teams', { name: 'Builders' })).body;
    const roles = (await admin.get<RolePage>('/roles?limit=200')).body.items;
    viewer = roles.find((r) => r.name === 'viewer')!;
    operator = roles.find((r) => r.name === 'operator')!;
    setting = {
      issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, displayName: 'Example SSO', redirectUri: `${t.baseUrl}/api/v1/auth/oidc/callback`,
      adminGroups: ['cairn-admins'],
      teamMappings: [{ group: 'builders', teamId: team.id, roleIds: [viewer.id] }, { group: 'builder-ops', teamId: team.id, roleIds: [operator.id] }],
    };
  });
  after(async () => {
    await op.close();
    await t.dispose();
  });

  it('refuses a setting whose issuer does not answer discovery, naming body.issuer and the cause', async () => {
    const res = await admin.put<Problem>('/auth/oidc', { ...setting, issuer: 'http://127.0.0.1:1/realms/nowhere' });
    expectProblem(res, 400, 'invalid_request', 'body.issuer');
    expect(res.body.detail).to.include('.well-known/openid-configuration');
    expectProblem(await admin.put('/auth/oidc', { ...setting, issuer: 'http://sso.example.com' }), 400, 'invalid_request', 'https');
    expectProblem(await admin.get('/auth/oidc'), 404, 'not_found');
    expect((await t.api.get<AuthMethods>('/auth/methods')).body).to.deep.equal({ password: true });
  });

  it('refuses team mappings naming a team or role that does not exist', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    expectProblem(await admin.put('/auth/oidc', { ...setting, teamMappings: [{ group: 'g', teamId: missing, roleIds: [] }] }), 400, 'invalid_request', 'body.teamMappings[0].teamId');
    expectProblem(await admin.put('/auth/oidc', { ...setting, teamMappings: [{ group: 'g', teamId: team.id, roleIds: [missing] }] }), 400, 'invalid_request', 'body.teamMappings[0].roleIds');
  });

  it('saves the setting without ever showing the secret, which the store keeps only sealed', async () => {
    const put = await admin.put<OidcSetting>('/auth/oidc', setting);
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({ issuer: op.issuer, clientId: op.clientId, displayName: 'Example SSO', groupsClaim: 'groups', allowPasswordLogin: true });
    expect(put.body.scopes).to.deep.equal(['openid', 'profile', 'email']);
    const got = await admin.get<OidcSetting>('/auth/oidc');
    expect(got.status).to.equal(200);
    for (const res of [put, got]) expect(res.text).not.to.include(op.clientSecret);
    const audit = await admin.get<AuditEventPage>('/audit-events?action=auth.oidc.update&limit=1');
    expect(JSON.stringify(audit.body)).not.to.include(op.clientSecret);
    for (const file of await filesUnder(t.dataDir)) expect((await readFile(file)).includes(op.clientSecret), file).to.equal(false);
    expect((await t.api.get<AuthMethods>('/auth/methods')).body).to.deep.equal({ password: true, oidc: { displayName: 'Example SSO', loginUrl: '/api/v1/auth/oidc/login' } });
  });

  it('refuses the login with a clear problem while neither --public-url nor redirectUri says where to come back', async () => {
    const { redirectUri: _left, ...withoutRedirect } = setting;
    expect((await admin.put('/auth/oidc', withoutRedirect)).status).to.equal(200);
    const res = await t.api.get<Problem>('/auth/oidc/login');
    expectProblem(res, 409, 'conflict', '--public-url');
    expect(res.headers.get('location')).to.equal(null);
    expect((await admin.put('/auth/oidc', setting)).status).to.equal(200);
  });

  it('redirects the login to the provider with the code flow, PKCE S256, state and nonce, in a sealed cookie', async () => {
    const res = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).to.equal(op.issuer);
    const q = to.searchParams;
    expect(q.get('response_type')).to.equal('code');
    expect(q.get('client_id')).to.equal(op.clientId);
    expect(q.get('redirect_uri')).to.equal(`${t.baseUrl}/api/v1/auth/oidc/callback`);
    expect(q.get('code_challenge_method')).to.equal('S256');
    expect(q.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).to.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('nonce')).to.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('scope')!.split(' ')).to.include('openid');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-cairn_oidc='))!;
    for (const attr of ['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/', 'Max-Age=600']) expect(cookie).to.include(attr);
    // Sealed: neither the state nor anything else of the flow can be read from it.
    expect(cookie).not.to.include(q.get('state')!);
  });

  it('signs a new user in through the provider\'s pages, with groups giving global administration and team roles', async () => {
    op.users.set('sub-alice', { sub: 'sub-alice', preferred_username: 'alice', email: 'alice@corp.example', name: 'Alice A', groups: ['cairn-admins', 'builders'] });
    const { landed, client } = await signIn('sub-alice');
    expect(landed).to.equal('/');
    const user = await me(client);
    expect(user).to.include({ username: 'alice', email: 'alice@corp.example', displayName: 'Alice A', globalAdmin: true, passwordChangeRequired: false });
    expect((await membership(user.id))?.roleIds).to.deep.equal([viewer.id]);
    const event = await lastLoginEvent();
    expect(event).to.include({ outcome: 'SUCCESS', actorUserId: user.id, targetId: user.id });
    expect(event.details).to.include({ created: true, globalAdmin: true });
    expect(JSON.stringify(event)).not.to.match(/eyJ/);
    // A user made by the provider has no password that signs in.
    expectProblem(await t.api.post('/auth/login', { username: 'alice', password: '' + 'any-password' }), 401, 'invalid_credentials');
  });

  it('sets administration and team roles again from the groups at every sign-in', async () => {
    op.users.get('sub-alice')!.groups = ['builder-ops'];
    const second = await signIn('sub-alice');
    const user = await me(second.client);
    expect(user.globalAdmin).to.equal(false);
    expect((await membership(user.id))?.roleIds).to.deep.equal([operator.id]);
    op.users.get('sub-alice')!.groups = ['unrelated'];
    const third = await signIn('sub-alice');
    expect((await me(third.client)).id).to.equal(user.id);
    expect(await membership(user.id), 'a team the groups no longer map to is left').to.equal(undefined);
    const users = (await admin.get<UserPage>('/users?limit=200')).body.items;
    expect(users.filter((u) => u.username.startsWith('alice'))).to.have.length(1);
  });

  it('keeps a membership of a team no mapping names', async () => {
    const other = (await admin.post<Team>('/teams', { name: 'Elsewhere' })).body;
    const alice = (await admin.get<UserPage>('/users?limit=200')).body.items.find((u) => u.username === 'alice')!;
    expect((await admin.put(`/teams/${other.id}/members/${alice.id}`, { roleIds: [viewer.id] })).status).to.equal(200);
    await signIn('sub-alice');
    const members = (await admin.get<MembershipPage>(`/teams/${other.id}/members`)).body.items;
    expect(members.map((m) => m.userId)).to.deep.equal([alice.id]);
  });

  it('keys users by issuer and subject: never an existing user by email, and the same user whatever its claims become', async () => {
    const created = await admin.post<User>('/users', { username: 'bob', email: 'bob@corp.example', displayName: 'Bob', password: 'bob-password-1' });
    expect(created.status).to.equal(201);
    op.users.set('sub-bob', { sub: 'sub-bob', preferred_username: 'bob', email: 'bob@corp.example', groups: [] });
    const first = await me((await signIn('sub-bob')).client);
    expect(first.id).not.to.equal(created.body.id);
    expect(first.username).to.equal('bob-2');
    expect((await t.api.post('/auth/login', { username: 'bob', password: 'bob-password-1' })).status, 'the password user keeps its sign-in').to.equal(200);
    op.users.set('sub-bob', { sub: 'sub-bob', preferred_username: 'robert', email: 'robert@corp.example', groups: [] });
    expect((await me((await signIn('sub-bob')).client)).id).to.equal(first.id);
    op.users.set('sub-mallory', { sub: 'sub-mallory', email: 'bob@corp.example', groups: [] });
    const mallory = await me((await signIn('sub-mallory')).client);
    expect(mallory.id).not.to.be.oneOf([first.id, created.body.id]);
    expect(mallory.username).to.equal('bob-3');
  });

  it('answers oidc_state for a tampered state, a missing flow cookie or another browser\'s cookie', async () => {
    op.users.set('sub-carol', { sub: 'sub-carol', preferred_username: 'carol', groups: [] });
    const start = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
    const flowCookie = start.headers.getSetCookie()[0].split(';')[0];
    const callback = (query: string, cookie?: string) =>
      fetch(`${t.baseUrl}/api/v1/auth/oidc/callback?${query}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const res of [await callback('code=abc&state=tampered', flowCookie), await callback('code=abc&state=x'), await callback('code=abc&state=x', '__Host-cairn_oidc=v1.AAAA.BBBB.CCCC')]) {
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal('/sign-in?error=oidc_state');
      expect(res.headers.getSetCookie().some((c) => c.startsWith(sessionCookieName))).to.equal(false);
    }
    const event = await lastLoginEvent();
    expect(event).to.include({ outcome: 'DENIED' });
    expect(event.details).to.include({ error: 'oidc_state' });
  });

  it('answers oidc_denied when the provider answers with an error', async () => {
    const jar = new CookieJar();
    const start = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
    jar.store(`${t.baseUrl}/`, start);
    // prompt=none without a session at the provider: it answers login_required to the callback.
    const authorize = new URL(start.headers.get('location')!);
    authorize.searchParams.set('prompt', 'none');
    expect(await browseSignIn(authorize.href, t.baseUrl, 'sub-carol', jar)).to.equal('/sign-in?error=oidc_denied');
    expect((await lastLoginEvent()).details).to.include({ error: 'oidc_denied' });
  });

  // Each with the check that must catch it, so a token refused for another reason fails the test.
  const badTokens: [string, RegExp, () => TestOidcProvider['rewriteIdToken']][] = [
    ['a wrong nonce', /nonce/, () => changedIdToken(op.signWithProviderKey, (c) => ({ ...c, nonce: 'not-the-nonce' }))],
    ['an expired ID token', /exp/, () => changedIdToken(op.signWithProviderKey, (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }))],
    ['a wrong audience', /aud/, () => changedIdToken(op.signWithProviderKey, (c) => ({ ...c, aud: 'someone-else' }))],
    ['a wrong issuer', /iss/, () => changedIdToken(op.signWithProviderKey, (c) => ({ ...c, iss: 'http://127.0.0.1:1' }))],
    ['a signature by another key', /signature/i, () => changedIdToken(op.signWithStrangerKey, (c) => c)],
  ];
  for (const [what, reason, rewriter] of badTokens) {
    it(`answers oidc_invalid_token for ${what}`, async () => {
      op.rewriteIdToken = rewriter();
      try {
        const { landed, client } = await signIn('sub-carol');
        expect(landed).to.equal('/sign-in?error=oidc_invalid_token');
        expect(client).to.equal(undefined);
      } finally {
        op.rewriteIdToken = undefined;
      }
      const event = await lastLoginEvent();
      expect(event).to.include({ outcome: 'DENIED' });
      expect(event.details).to.include({ error: 'oidc_invalid_token' });
      expect(event.details.reason).to.match(reason);
      expect(JSON.stringify(event)).not.to.match(/eyJ/);
    });
  }

  it('signs in with ID tokens passed through the rewriting proxy unchanged (the proxy itself breaks nothing)', async () => {
    op.rewriteIdToken = changedIdToken(op.signWithProviderKey, (c) => c);
    try {
      expect((await signIn('sub-carol')).landed).to.equal('/');
    } finally {
      op.rewriteIdToken = undefined;
    }
  });

  it('with allowPasswordLogin false, refuses password sign-in to all but global administrators', async () => {
    expect((await admin.put('/auth/oidc', { ...setting, allowPasswordLogin: false })).status).to.equal(200);
    expect((await t.api.get<AuthMethods>('/auth/methods')).body.password).to.equal(false);
    const refused = await t.api.post<Problem>('/auth/login', { username: 'bob', password: 'bob-password-1' });
    expectProblem(refused, 403, 'forbidden', 'Password sign-in is turned off');
    expect(refused.headers.get('set-cookie')).to.equal(null);
    expectProblem(await t.api.post('/auth/login', { username: 'bob', password: 'wrong-password' }), 401, 'invalid_credentials');
    expect((await t.api.post('/auth/login', { username: 'admin', password: 'correct-horse-battery' })).status).to.equal(200);
    expect((await signIn('sub-carol')).landed, 'single sign-on still works').to.equal('/');
  });

  it('a burst of 40 callbacks at once from one address, each making the Controller exchange a bogus code: at most 20 reach the provider; the rest 429', async () => {
    const start = await fetch(`${t.baseUrl}/api/v1/auth/oidc/login`, { redirect: 'manual' });
    const cookie = start.headers.getSetCookie()[0].split(';')[0];
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const dispatcher = new Agent({ localAddress: '127.0.0.9' });
    op.tokenDelayMs = 300;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      fetch(`${t.baseUrl}/api/v1/auth/oidc/callback?code=bogus-${i}&state=${state}&iss=${encodeURIComponent(op.issuer)}`, { redirect: 'manual', headers: { cookie }, dispatcher })))
      .finally(() => (op.tokenDelayMs = undefined));
    const checked = answers.filter((r) => r.status === 302);
    expect(checked.length).to.be.within(1, 20);
    checked.forEach((r) => expect(r.headers.get('location')).to.equal('/sign-in?error=oidc_invalid_token'));
    expect(answers.filter((r) => r.status === 429).length).to.equal(40 - checked.length);
  });

  it('deletes the setting (204): sign-in with the provider ends and passwords open again', async () => {
    const res = await admin.delete('/auth/oidc');
    expect(res.status).to.equal(204);
    expectProblem(await admin.get('/auth/oidc'), 404, 'not_found');
    expect((await t.api.get<AuthMethods>('/auth/methods')).body).to.deep.equal({ password: true });
    expectProblem(await t.api.get('/auth/oidc/login'), 404, 'not_found');
    expect((await t.api.post('/auth/login', { username: 'bob', password: 'bob-password-1' })).status).to.equal(200);
    const events = await admin.get<AuditEventPage>('/audit-events?action=auth.oidc.delete&limit=1');
    expect(events.body.items[0]).to.include({ outcome: 'SUCCESS' });
  });

  it('is for global administrators only', async () => {
    const bob = await t.api.post('/auth/login', { username: 'bob', password: 'bob-password-1' });
    const client = t.api.withCookie(bob.headers.get('set-cookie')!.split(';')[0]);
    await client.post('/me/password', { currentPassword: 'bob-password-1', newPassword: 'bob-password-2' });
    expectProblem(await client.put('/auth/oidc', setting), 403, 'forbidden');
    expectProblem(await client.get('/auth/oidc'), 403, 'forbidden');
    expectProblem(await client.delete('/auth/oidc'), 403, 'forbidden');
  });

  it('refuses a flood of forged callbacks from one address with 429 after 20 failures, so the audit log stays bounded', async () => {
    const events = async () => (await admin.get<AuditEventPage>('/audit-events?action=auth.oidc.login&limit=200')).body.items.length;
    const before = await events();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await fetch(`${t.baseUrl}/api/v1/auth/oidc/callback?code=c&state=s${i}`, { redirect: 'manual' })).status);
    expect(statuses.at(-1)).to.equal(429);
    expect(statuses.filter((s) => s === 302).length).to.be.at.most(20);
    expect((await events()) - before).to.be.at.most(20);
  });
});
