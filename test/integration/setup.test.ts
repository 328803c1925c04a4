import { expect } from 'chai';
import { access, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { adminCredentials, networkInput, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, Network, User } from '../support/api-types.js';
import { sessionCookieFrom } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const readCode = async (t: TestController) => (await readFile(join(t.dataDir, 'setup-code'), 'utf8')).trim();
const exists = (p: string) => access(p).then(() => true, () => false);

describe('setup: first run', () => {
  let t: TestController;
  before(async () => {
    t = await startTestController();
  });
  after(async () => t.dispose());

  it('writes the one-time setup code to <data-dir>/setup-code with mode 0600', async () => {
    const info = await stat(join(t.dataDir, 'setup-code'));
    expect(info.mode & 0o777).to.equal(0o600);
    expect(await readCode(t)).to.match(/^[0-9A-Za-z]{4}(-[0-9A-Za-z]{4}){4}$/);
  });

  it('GET /setup says setup is not done yet, without credentials', async () => {
    const res = await t.api.get('/setup');
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ done: false });
  });

  it('answers 401 unauthenticated before setup for endpoints that need a user', async () => {
    expectProblem(await t.api.get('/me'), 401, 'unauthenticated');
    expectProblem(await t.api.get('/users'), 401, 'unauthenticated');
  });

  it('refuses an invalid body with 400 invalid_request naming the field', async () => {
    const code = await readCode(t);
    const { network: _n, ...noNetwork } = { ...adminCredentials, network: networkInput };
    expectProblem(await t.api.post('/setup', { setupCode: code, ...noNetwork }), 400, 'invalid_request', 'body.network');
    expectProblem(await t.api.post('/setup', { setupCode: code, ...adminCredentials, network: { ...networkInput, port: 70000 } }), 400, 'invalid_request', 'body.network.port');
    expectProblem(await t.api.post('/setup', { setupCode: code, ...adminCredentials, email: 'not-an-email', network: networkInput }), 400, 'invalid_request', 'body.email');
    expectProblem(await t.api.post('/setup', { setupCode: code, ...adminCredentials, password: 'short', network: networkInput }), 400, 'invalid_request', 'body.password');
    expectProblem(await t.api.post('/setup', { setupCode: code, ...adminCredentials, network: { ...networkInput, address: 'host:47000' } }), 400, 'invalid_request', 'body.network.address');
  });

  it('refuses a wrong code with 401 invalid_setup_code', async () => {
    expectProblem(await t.api.post('/setup', { setupCode: 'AAAA-BBBB-CCCC-DDDD-EEEE', ...adminCredentials, network: networkInput }), 401, 'invalid_setup_code');
  });

  let cookie = '';
  it('creates the first global administrator and the network, signs in, and removes the code file', async () => {
    const res = await t.api.post<User>('/setup', { setupCode: await readCode(t), ...adminCredentials, network: networkInput });
    expect(res.status, res.text).to.equal(201);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body).to.include({ username: 'admin', email: 'admin@example.com', displayName: 'Admin', globalAdmin: true, passwordChangeRequired: false });
    expect(res.body.id).to.match(/^[0-9a-f-]{36}$/);
    expect(Date.parse(res.body.createdAt)).to.be.a('number').and.not.NaN;
    expect(res.text).not.to.include(adminCredentials.password);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).to.match(/^__Host-cairn_session=[^;]+;/);
    for (const attr of ['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/']) expect(setCookie).to.include(attr);
    expect(setCookie).not.to.match(/Domain=/i);
    cookie = sessionCookieFrom(res);
    expect(await exists(join(t.dataDir, 'setup-code'))).to.equal(false);

    const me = await t.api.withCookie(cookie).get<User>('/me');
    expect(me.status).to.equal(200);
    expect(me.body.id).to.equal(res.body.id);
    const network = await t.api.withCookie(cookie).get<Network>('/network');
    expect(network.status).to.equal(200);
    expect(network.body).to.include(networkInput);
  });

  it('answers 409 setup_done afterwards, whatever the code, and GET /setup says done', async () => {
    expect((await t.api.get('/setup')).body).to.deep.equal({ done: true });
    expectProblem(await t.api.post('/setup', { setupCode: 'AAAA-BBBB-CCCC-DDDD-EEEE', ...adminCredentials, username: 'other', email: 'o@example.com', network: networkInput }), 409, 'setup_done');
  });

  it('does not write a new setup code after a restart once set up', async () => {
    t = await t.restart();
    expect(await exists(join(t.dataDir, 'setup-code'))).to.equal(false);
    expectProblem(await t.api.post('/setup', { setupCode: 'AAAA-BBBB-CCCC-DDDD-EEEE', ...adminCredentials, network: networkInput }), 409, 'setup_done');
  });

  it('audits setup and its failures', async () => {
    const events = await t.api.withCookie(cookie).get<AuditEventPage>('/audit-events?action=setup.complete');
    expect(events.status, events.text).to.equal(200);
    const outcomes = events.body.items.map((e) => e.outcome);
    expect(outcomes).to.include.members(['SUCCESS', 'FAILED', 'DENIED']);
    const ok = events.body.items.find((e) => e.outcome === 'SUCCESS');
    expect(ok).to.include({ actorKind: 'USER', targetKind: 'user' });
    expect(ok?.actorUserId).to.equal(ok?.targetId);
    const denied = events.body.items.find((e) => e.outcome === 'DENIED');
    expect(denied?.details).to.include({ error: 'invalid_setup_code' });
    expect(events.text).not.to.include(adminCredentials.password);
  });
});

describe('setup: a pending setup across restarts and the rate limit', () => {
  let t: TestController;
  before(async () => {
    t = await startTestController();
  });
  after(async () => t.dispose());

  it('writes a fresh code at each start while setup is pending; the old one is dead', async () => {
    const first = await readCode(t);
    t = await t.restart();
    const second = await readCode(t);
    expect(second).not.to.equal(first);
    expectProblem(await t.api.post('/setup', { setupCode: first, ...adminCredentials, network: networkInput }), 401, 'invalid_setup_code');
  });

  it('rate limits failed attempts: 429 too_many_attempts with Retry-After, even for the right code', async () => {
    // One wrong attempt was made by the previous test; four more use up the allowance of five.
    for (let i = 0; i < 4; i++) {
      expectProblem(await t.api.post('/setup', { setupCode: `WRONG-${i}`, ...adminCredentials, network: networkInput }), 401, 'invalid_setup_code');
    }
    const limited = await t.api.post('/setup', { setupCode: await readCode(t), ...adminCredentials, network: networkInput });
    expectProblem(limited, 429, 'too_many_attempts');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).to.equal(true);
    expect(retryAfter).to.be.greaterThan(0).and.at.most(15 * 60);
  });
});
