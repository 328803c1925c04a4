import { expect } from 'chai';
import { Agent } from 'undici';
import type { AuditEventPage, Problem } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

describe('unlock: a global administrator lifts an account\'s lockout', () => {
  let t: TestController;
  let admin: ApiClient;
  /** Clients whose connections come from other loopback addresses (Linux routes all of 127/8 to lo). */
  const from = (address: string) => new ApiClient(t.baseUrl, {}, new Agent({ localAddress: address }));
  const login = (client: ApiClient, username: string, password: string) => client.post('/auth/login', { username, password });
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('says how long to wait in words and who can unlock, not a count of seconds', async () => {
    await createReadyUser(t, admin, 'hana');
    const a = from('127.0.3.1');
    for (let i = 0; i < 5; i++) expectProblem(await login(a, 'hana', `wrong-${i}`), 401, 'invalid_credentials');
    const locked = await login(a, 'hana', 'second-password-2');
    expectProblem(locked, 429, 'too_many_attempts');
    expect((locked.body as Problem).detail).to.equal(
      'Too many attempts: try again in about 15 minutes. A global administrator can unlock the account on the Users page.',
    );
  });

  it('POST /users/{id}/unlock lets a locked-out user sign in at once, and is audited', async () => {
    const { userId } = await createReadyUser(t, admin, 'ivan');
    const a = from('127.0.3.2');
    for (let i = 0; i < 5; i++) expectProblem(await login(a, 'ivan', `wrong-${i}`), 401, 'invalid_credentials');
    expectProblem(await login(a, 'ivan', 'second-password-2'), 429, 'too_many_attempts');
    const unlocked = await admin.post(`/users/${userId}/unlock`);
    expect(unlocked.status, unlocked.text).to.equal(204);
    expect((await login(a, 'ivan', 'second-password-2')).status).to.equal(200);
    const events = (await admin.get<AuditEventPage>(`/audit-events?action=user.unlock&targetId=${userId}`)).body.items;
    expect(events.map((e) => [e.outcome, e.details])).to.deep.equal([['SUCCESS', { username: 'ivan' }]]);
  });

  it('also forgets wrong current passwords of a password change', async () => {
    const { client, userId } = await createReadyUser(t, admin, 'jun');
    const change = (currentPassword: string) => client.post('/me/password', { currentPassword, newPassword: 'third-password-3' });
    for (let i = 0; i < 5; i++) expectProblem(await change(`wrong-${i}`), 400, 'invalid_request', 'body.currentPassword');
    expectProblem(await change('second-password-2'), 429, 'too_many_attempts');
    expect((await admin.post(`/users/${userId}/unlock`)).status).to.equal(204);
    expect((await change('second-password-2')).status).to.equal(204);
  });

  it('is for global administrators only (403, audited DENIED), and 404 for an unknown user', async () => {
    const { client, userId } = await createReadyUser(t, admin, 'kai');
    expectProblem(await client.post(`/users/${userId}/unlock`), 403, 'forbidden');
    expectProblem(await admin.post('/users/00000000-0000-4000-8000-000000000000/unlock'), 404, 'not_found');
    const events = (await admin.get<AuditEventPage>(`/audit-events?action=user.unlock&targetId=${userId}`)).body.items;
    expect(events.map((e) => e.outcome)).to.deep.equal(['DENIED']);
  });
});
