import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { Agent } from 'undici';
import type { AuditEventPage, CreatedApiToken, TotpEnrolment, TotpRecoveryCodes, User } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { runBuilt } from '../support/run-program.js';

const password = 'second-password-2';
const stepMs = 30_000;

/** Through the public API, and `cairn login` as built (`npm run build` first). */
describe('TOTP second factor through the API', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let gina: ApiClient;
  let ginaId: string;
  let secret: string;
  let recoveryCodes: string[];
  let confirmingCode: string;

  /** The code an authenticator app shows now by the Controller's clock (the test moves it), `steps` away. */
  const code = (steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: t.clock.now().getTime() + steps * stepMs });
  /** A client whose connections come from another loopback address, so throttles start afresh. */
  const from = (address: string) => new ApiClient(t.baseUrl, {}, new Agent({ localAddress: address }));
  const login = (client: ApiClient, totpCode?: string) => client.post<User>('/auth/login', { username: 'gina', password, ...(totpCode === undefined ? {} : { totpCode }) });
  const audited = async (action: string) => (await admin.get<AuditEventPage>(`/audit-events?action=${action}&targetId=${ginaId}`)).body.items;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    ({ client: gina, userId: ginaId } = await createReadyUser(t, admin, 'gina'));
  });
  after(async () => t.dispose());

  it('enrols: a pending seed (replaced by a new call), an otpauth URI, and still off until confirmed', async () => {
    const first = await gina.post<TotpEnrolment>('/me/totp');
    expect(first.status, first.text).to.equal(200);
    const res = await gina.post<TotpEnrolment>('/me/totp');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.secret).to.match(/^[A-Z2-7]{32}$/).and.not.equal(first.body.secret);
    expect(res.body.otpauthUri).to.match(/^otpauth:\/\/totp\/Cairn:gina\?/).and.include(`secret=${res.body.secret}`);
    secret = res.body.secret;
    expect((await gina.get<User>('/me')).body.totpEnabled).to.equal(false);
    expect((await login(t.api)).status).to.equal(200);
  });

  it('confirm: no or a wrong password is 400 naming body.password, a wrong code body.code; the right ones turn TOTP on and answers ten recovery codes', async () => {
    expectProblem(await gina.post('/me/totp/confirm', { code: code() }), 400, 'invalid_request', 'body.password');
    expectProblem(await gina.post('/me/totp/confirm', { code: code(), password: 'not-the-password' }), 400, 'invalid_request', 'body.password');
    expectProblem(await gina.post('/me/totp/confirm', { code: '000000' === code() ? '111111' : '000000', password }), 400, 'invalid_request', 'body.code');
    const elsewhere = t.api.withCookie(sessionCookieFrom(await login(t.api)));
    expect((await elsewhere.get('/me')).status).to.equal(200);
    const token = (await gina.post<CreatedApiToken>('/me/tokens', { name: 'before-totp' })).body.token;
    confirmingCode = code();
    const res = await gina.post<TotpRecoveryCodes>('/me/totp/confirm', { code: confirmingCode, password });
    expect(res.status, res.text).to.equal(200);
    recoveryCodes = res.body.recoveryCodes;
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    expect((await gina.get<User>('/me')).body.totpEnabled).to.equal(true);
    expect((await admin.get<User>(`/users/${ginaId}`)).body.totpEnabled).to.equal(true);
    // Sessions opened with the password alone end; the confirming one stays, and API tokens (credentials of their own) keep working.
    expectProblem(await elsewhere.get('/me'), 401, 'unauthenticated');
    expect((await t.api.withToken(token).get('/me')).status).to.equal(200);
    expectProblem(await gina.post('/me/totp'), 409, 'conflict');
    expect((await audited('user.totp_enable')).map((e) => e.outcome).sort()).to.deep.equal(['FAILED', 'FAILED', 'FAILED', 'SUCCESS']);
    expect((await audited('user.totp_enrol')).map((e) => e.outcome).sort()).to.deep.equal(['FAILED', 'SUCCESS', 'SUCCESS']);
    expect(JSON.stringify(await audited('user.totp_enable'))).not.to.include(recoveryCodes[0]);
  });

  it('sign-in without a code is 401 totp_required, with no cookie', async () => {
    const res = await login(t.api);
    expectProblem(res, 401, 'totp_required');
    expect(res.headers.get('set-cookie')).to.equal(null);
    // A wrong password stays invalid_credentials: totp_required is only for the right one.
    expectProblem(await t.api.post('/auth/login', { username: 'gina', password: 'not-the-password' }), 401, 'invalid_credentials');
  });

  it('the code that confirmed cannot sign in (used up); the next step\'s code signs in once, then is refused as a replay', async () => {
    const client = from('127.0.3.1');
    // The password was right (a wrong one is refused before the code is read): the answer says the code is what to fix.
    const usedUp = await login(client, confirmingCode);
    expectProblem(usedUp, 401, 'invalid_credentials', 'body.totpCode: the code is wrong or expired');
    expect(JSON.stringify(usedUp.body)).not.to.include('username or password');
    t.clock.advance(stepMs);
    const now = code();
    const res = await login(client, now);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.totpEnabled).to.equal(true);
    expect((await t.api.withCookie(sessionCookieFrom(res)).get('/me')).status).to.equal(200);
    expectProblem(await login(client, now), 401, 'invalid_credentials');
  });

  it('wrong codes count with wrong passwords: five per account and address, then 429 even for the right code', async () => {
    const client = from('127.0.3.2');
    for (let i = 0; i < 3; i++) expectProblem(await login(client, i % 2 ? '123456' : 'not-a-recovery-code'), 401, 'invalid_credentials');
    // With a wrong password the code is not read: the answer is about the password, whatever the code.
    for (let i = 0; i < 2; i++) expectProblem(await client.post('/auth/login', { username: 'gina', password: `wrong-${i}`, totpCode: code() }), 401, 'invalid_credentials', 'username or password is wrong');
    t.clock.advance(stepMs);
    const limited = await login(client, code());
    expectProblem(limited, 429, 'too_many_attempts');
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    // Another address is not held back.
    expect((await login(from('127.0.3.3'), code())).status).to.equal(200);
  });

  /** 40 sign-ins at once with the right password: at most five second factors checked, the rest 429 with Retry-After. */
  const burst = async (address: string, wrongCode: (i: number) => string) => {
    const client = from(address);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => login(client, wrongCode(i))));
    const checked = answers.filter((r) => r.status === 401);
    expect(checked.length).to.be.within(1, 5);
    for (const r of answers.filter((a) => a.status !== 401)) {
      expectProblem(r, 429, 'too_many_attempts');
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
    }
  };

  it('a burst of wrong TOTP codes with the right password gets at most five checked', async () => {
    await burst('127.0.3.7', (i) => String(100000 + i));
  });

  it('a burst of wrong recovery codes with the right password gets at most five checked', async () => {
    await burst('127.0.3.8', (i) => `AAAA-BBBB-CCCC-${String(1000 + i)}`);
  });

  it('a recovery code signs in once', async () => {
    const client = from('127.0.3.4');
    expect((await login(client, recoveryCodes[0])).status).to.equal(200);
    expectProblem(await login(client, recoveryCodes[0]), 401, 'invalid_credentials');
    expect((await login(client, recoveryCodes[1].replaceAll('-', ''))).status).to.equal(200);
    const signIns = (await admin.get<AuditEventPage>(`/audit-events?action=session.create&targetId=${ginaId}`)).body.items;
    expect(signIns.filter((e) => e.details.secondFactor === 'recovery_code')).to.have.length(2);
    expect(signIns.filter((e) => e.details.secondFactor === 'totp').length).to.be.at.least(2);
  });

  it('an API token is not asked for a code', async () => {
    t.clock.advance(stepMs);
    const signedIn = t.api.withCookie(sessionCookieFrom(await login(from('127.0.3.5'), code())));
    const token = (await signedIn.post<CreatedApiToken>('/me/tokens', { name: 'script' })).body.token;
    expect((await t.api.withToken(token).get<User>('/me')).body.username).to.equal('gina');
  });

  it('cairn login (the built CLI) signs in with --totp-code; a wrong code is the API\'s refusal', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cairn-totp-cli-'));
    try {
      const cairn = (totpCode: string) => runBuilt('cli', ['login', '--url', t.baseUrl, '--username', 'gina', '--password-stdin', '--totp-code', totpCode], {
        env: { CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' }, stdin: `${password}\n`,
      });
      const wrong = await cairn(recoveryCodes[0]);
      expect(wrong.code).to.equal(1);
      expect(wrong.stderr).to.include('Error from server (invalid_credentials)');
      t.clock.advance(stepMs);
      const res = await cairn(code());
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stderr).to.include(`Logged in to ${t.baseUrl} as gina`);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('turning off needs a valid code: a wrong one is 400 naming body.code, a recovery code works and is audited', async () => {
    expectProblem(await gina.delete('/me/totp', { body: { code: recoveryCodes[0] } }), 400, 'invalid_request', 'body.code');
    // Refused by the schema before the service: audited without a target.
    expectProblem(await gina.delete('/me/totp', { body: {} }), 400, 'invalid_request', 'body.code');
    expect((await gina.delete('/me/totp', { body: { code: recoveryCodes[2] } })).status).to.equal(204);
    expect((await gina.get<User>('/me')).body.totpEnabled).to.equal(false);
    expect((await login(from('127.0.3.6'))).status).to.equal(200);
    expectProblem(await gina.delete('/me/totp', { body: { code: '123456' } }), 409, 'conflict');
    expect((await audited('user.totp_disable')).map((e) => e.outcome).sort()).to.deep.equal(['FAILED', 'FAILED', 'SUCCESS']);
  });

  it('a global administrator resets a user\'s TOTP (audited); others may not', async () => {
    secret = (await gina.post<TotpEnrolment>('/me/totp')).body.secret;
    expect((await gina.post('/me/totp/confirm', { code: code(), password })).status).to.equal(200);
    expectProblem(await gina.delete(`/users/${ginaId}/totp`), 403, 'forbidden');
    expectProblem(await login(t.api), 401, 'totp_required');
    expect((await admin.delete(`/users/${ginaId}/totp`)).status).to.equal(204);
    expect((await admin.get<User>(`/users/${ginaId}`)).body.totpEnabled).to.equal(false);
    expect((await login(t.api)).status).to.equal(200);
    const resets = await audited('user.totp_reset');
    expect(resets.map((e) => e.outcome).sort()).to.deep.equal(['DENIED', 'SUCCESS']);
    expect(resets.find((e) => e.outcome === 'SUCCESS')?.details).to.include({ username: 'gina', wasEnabled: true });
    expectProblem(await admin.delete('/users/00000000-0000-4000-8000-000000000000/totp'), 404, 'not_found');
  });
});
