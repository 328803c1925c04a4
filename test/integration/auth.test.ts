import { expect } from 'chai';
import { adminCredentials, createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, CreatedApiToken, Problem, TeamPage, User } from '../support/api-types.js';
import { Agent } from 'undici';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const hour = 3600 * 1000;

describe('auth: sign-in, sign-out, cookie, CSRF', () => {
  let t: TestController;
  let admin: ApiClient;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    await createReadyUser(t, admin, 'carol');
  });
  after(async () => t.dispose());

  it('signs in with the username, case-insensitively, and with the email; sets a __Host- cookie', async () => {
    for (const username of ['carol', 'CAROL', 'carol@example.com', 'Carol@Example.com']) {
      const res = await t.api.post<User>('/auth/login', { username, password: 'second-password-2' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ username: 'carol', passwordChangeRequired: false, globalAdmin: false });
      expect(res.body).not.to.have.property('passwordHash');
      const setCookie = res.headers.get('set-cookie') ?? '';
      expect(setCookie).to.match(/^__Host-cairn_session=[A-Za-z0-9_-]{40,};/);
      for (const attr of ['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/']) expect(setCookie).to.include(attr);
      expect(setCookie).not.to.match(/Domain=/i);
    }
  });

  it('refuses a wrong password or an unknown user with 401 invalid_credentials, alike', async () => {
    const wrong = await t.api.post<Problem>('/auth/login', { username: 'carol', password: 'not-the-password' });
    expectProblem(wrong, 401, 'invalid_credentials');
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    const unknown = await t.api.post<Problem>('/auth/login', { username: 'nobody', password: 'not-the-password' });
    expectProblem(unknown, 401, 'invalid_credentials');
    expect(unknown.body.detail).to.equal(wrong.body.detail);
  });

  it('refuses a login body without a password with 400 naming the field', async () => {
    expectProblem(await t.api.post('/auth/login', { username: 'carol' }), 400, 'invalid_request', 'body.password');
    expectProblem(await t.api.post('/auth/login', { username: 'carol', password: 'x', extra: 1 }), 400, 'invalid_request', 'body.extra');
  });

  it('answers 401 unauthenticated for a missing, unknown or malformed credential', async () => {
    expectProblem(await t.api.get('/me'), 401, 'unauthenticated');
    expectProblem(await t.api.get('/me', { headers: { cookie: '__Host-cairn_session=nonsense' } }), 401, 'unauthenticated');
    expectProblem(await t.api.get('/me', { headers: { cookie: `__Host-cairn_session=${'x'.repeat(300)}` } }), 401, 'unauthenticated');
    expectProblem(await t.api.get('/me', { headers: { authorization: 'Basic YWRtaW46cGFzcw==' } }), 401, 'unauthenticated');
    expectProblem(await t.api.get('/me', { headers: { authorization: 'Bearer cairn_pat_unknownunknownunknownunknownunknown' } }), 401, 'unauthenticated');
    expectProblem(await t.api.get('/me', { headers: { authorization: 'Bearer not-even-prefixed' } }), 401, 'unauthenticated');
  });

  it('logout answers 204, clears the cookie and ends the session on the server', async () => {
    const login = await t.api.post('/auth/login', { username: 'carol', password: 'second-password-2' });
    const cookie = sessionCookieFrom(login);
    const client = t.api.withCookie(cookie);
    expect((await client.get('/me')).status).to.equal(200);
    const out = await client.post('/auth/logout');
    expect(out.status, out.text).to.equal(204);
    expect(out.headers.get('set-cookie')).to.match(/^__Host-cairn_session=;.*Max-Age=0/);
    // Replaying the old cookie (as a stolen copy would) no longer works.
    expectProblem(await client.get('/me'), 401, 'unauthenticated');
    expectProblem(await client.post('/auth/logout'), 401, 'unauthenticated');
  });

  it('sessions are independent: logging out one leaves the others signed in', async () => {
    const a = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'carol', password: 'second-password-2' })));
    const b = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'carol', password: 'second-password-2' })));
    expect((await a.post('/auth/logout')).status).to.equal(204);
    expect((await b.get('/me')).status).to.equal(200);
  });

  describe('CSRF', () => {
    it('refuses a cookie-authenticated POST with a foreign Origin (403 forbidden), and does nothing', async () => {
      const res = await admin.post('/teams', { name: 'csrf-team' }, { headers: { origin: 'https://evil.example' } });
      expectProblem(res, 403, 'forbidden');
      const teams = await admin.get<TeamPage>('/teams');
      expect(teams.body.items.map((x) => x.name)).not.to.include('csrf-team');
      expectProblem(await admin.post('/teams', { name: 'csrf-team' }, { headers: { origin: 'null' } }), 403, 'forbidden');
      expectProblem(await admin.delete('/users/00000000-0000-4000-8000-000000000000', { headers: { origin: 'http://localhost:1' } }), 403, 'forbidden');
    });

    it('refuses Sec-Fetch-Site: cross-site when the browser left Origin out, and accepts same-origin', async () => {
      expectProblem(await admin.post('/teams', { name: 'fetch-site-team' }, { headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'forbidden');
      const teams = await admin.get<TeamPage>('/teams');
      expect(teams.body.items.map((x) => x.name)).not.to.include('fetch-site-team');
      const same = await admin.post('/teams', { name: 'fetch-site-team' }, { headers: { 'sec-fetch-site': 'same-origin' } });
      expect(same.status, same.text).to.equal(201);
    });

    it('accepts the same origin, and no Origin at all', async () => {
      const res = await admin.post('/teams', { name: 'same-origin-team' }, { headers: { origin: t.baseUrl } });
      expect(res.status, res.text).to.equal(201);
      expect((await admin.post('/teams', { name: 'no-origin-team' })).status).to.equal(201);
    });

    it('does not apply to GET or to bearer tokens', async () => {
      expect((await admin.get('/me', { headers: { origin: 'https://evil.example' } })).status).to.equal(200);
      const created = await admin.post<CreatedApiToken>('/me/tokens', { name: 'csrf' });
      const bearer = t.api.withToken(created.body.token);
      const res = await bearer.post('/teams', { name: 'bearer-team' }, { headers: { origin: 'https://evil.example' } });
      expect(res.status, res.text).to.equal(201);
    });

    it('records the refused request as DENIED', async () => {
      const events = await admin.get<AuditEventPage>('/audit-events?action=team.create&outcome=DENIED');
      expect(events.body.items.length).to.be.at.least(1);
    });
  });
});

describe('auth: session idle timeout and absolute expiry', () => {
  let t: TestController;
  before(async () => {
    t = await startTestController();
    await setupAdmin(t);
  });
  after(async () => t.dispose());

  const login = async () => t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'admin', password: adminCredentials.password })));

  it('ends a session after 12 hours without a request; activity keeps it alive', async () => {
    const active = await login();
    const idle = await login();
    t.clock.advance(11 * hour);
    expect((await active.get('/me')).status).to.equal(200);
    t.clock.advance(2 * hour);
    // 13 hours since sign-in: the idle one has lapsed, the active one was seen 2 hours ago.
    expectProblem(await idle.get('/me'), 401, 'unauthenticated');
    expect((await active.get('/me')).status).to.equal(200);
  });

  it('ends a session 7 days after sign-in however active it is', async () => {
    const client = await login();
    for (let elapsed = 0; elapsed < 7 * 24 - 10; elapsed += 10) {
      t.clock.advance(10 * hour);
      expect((await client.get('/me')).status, `after ${elapsed + 10} h`).to.equal(200);
    }
    t.clock.advance(11 * hour);
    expectProblem(await client.get('/me'), 401, 'unauthenticated');
  });
});

describe('auth: login rate limits', () => {
  let t: TestController;
  let admin: ApiClient;
  /** Clients whose connections come from other loopback addresses (Linux routes all of 127/8 to lo). */
  const from = (address: string) => new ApiClient(t.baseUrl, {}, new Agent({ localAddress: address }));
  const login = (client: ApiClient, username: string, password: string) => client.post('/auth/login', { username, password });
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    await createReadyUser(t, admin, 'dave');
  });
  after(async () => t.dispose());

  it('allows five failures per account and address, then answers 429 with Retry-After from that address, even for the right password', async () => {
    const a = from('127.0.0.2');
    for (let i = 0; i < 5; i++) expectProblem(await login(a, 'dave', `wrong-${i}`), 401, 'invalid_credentials');
    const limited = await login(a, 'DAVE', 'second-password-2');
    expectProblem(limited, 429, 'too_many_attempts');
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0).and.at.most(15 * 60);
    // Another account from the same address is not affected.
    expect((await login(a, 'admin', adminCredentials.password)).status).to.equal(200);
  });

  it('a flood of wrong passwords from one address never locks the owner out from another', async () => {
    const a = from('127.0.0.3');
    const b = from('127.0.0.4');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await login(a, 'admin', `wrong-${i}`)).status);
    expect(statuses.slice(0, 5)).to.deep.equal([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).to.deep.equal(new Set([429]));
    expect((await login(b, 'admin', adminCredentials.password)).status).to.equal(200);
    expect((await login(b, 'ADMIN', adminCredentials.password)).status).to.equal(200);
  });

  it('allows twenty failures per client address across accounts, then answers 429 for everyone from it', async () => {
    const a = from('127.0.0.5');
    for (let i = 0; i < 20; i++) expectProblem(await login(a, `ghost${i}`, 'wrong-password'), 401, 'invalid_credentials');
    const limited = await login(a, 'admin', adminCredentials.password);
    expectProblem(limited, 429, 'too_many_attempts');
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    expect((await login(from('127.0.0.6'), 'admin', adminCredentials.password)).status).to.equal(200);
  });

  it('a burst of 40 concurrent wrong passwords for one account from one address gets at most five checked; the rest 429 with Retry-After', async () => {
    await createReadyUser(t, admin, 'erin');
    const a = from('127.0.0.7');
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => login(a, 'erin', `wrong-${i}`)));
    const checked = answers.filter((r) => r.status === 401);
    const refused = answers.filter((r) => r.status === 429);
    expect(checked.length).to.be.within(1, 5);
    expect(checked.length + refused.length).to.equal(40);
    for (const r of refused) {
      expectProblem(r, 429, 'too_many_attempts');
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0).and.at.most(15 * 60);
    }
    expectProblem(await login(a, 'erin', 'second-password-2'), 429, 'too_many_attempts');
  });

  it('a success gives its slot back: sign-ins in between do not use up the address\'s twenty failures', async () => {
    const a = from('127.0.0.8');
    for (let i = 0; i < 19; i++) expectProblem(await login(a, `phantom${i}`, 'wrong-password'), 401, 'invalid_credentials');
    // One after another: the one slot left is taken by each sign-in while it is checked, and given back.
    for (let i = 0; i < 6; i++) expect((await login(a, 'admin', adminCredentials.password)).status).to.equal(200);
    expectProblem(await login(a, 'phantom19', 'wrong-password'), 401, 'invalid_credentials');
    expectProblem(await login(a, 'admin', adminCredentials.password), 429, 'too_many_attempts');
  });

  it('a distributed attack reaches the per-account ceiling: 100 failures in 15 minutes lock the account from every address', async () => {
    // dave has 5 failures from 127.0.0.2 already; 95 more, 4 per address, so no pair or address limit is reached.
    for (let i = 0; i < 95; i++) {
      expectProblem(await login(from(`127.0.1.${Math.floor(i / 4) + 1}`), 'dave', 'wrong-password'), 401, 'invalid_credentials');
    }
    expectProblem(await login(from('127.0.2.1'), 'dave', 'second-password-2'), 429, 'too_many_attempts');
  });
});
