import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { Agent } from 'undici';
import { join } from 'node:path';
import { adminCredentials, createReadyUser, networkInput, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { storedAuditText } from '../support/stored-audit.js';
import { allPages, expectProblem } from '../support/problems.js';
import type { AuditEventPage, CreatedApiToken, PasswordResetIssued, Role, Team, User } from '../support/api-types.js';

const minute = 60_000;

describe('audit', () => {
  let t: TestController;
  let admin: ApiClient;
  let adminId: string;
  let nora: { client: ApiClient; userId: string };
  const secrets: string[] = [adminCredentials.password, 'first-password-1', 'second-password-2'];
  const marks: Record<string, string> = {};
  let team: Team;
  let role: Role;
  let token: CreatedApiToken;

  before(async () => {
    t = await startTestController();
    const setupCode = (await readFile(join(t.dataDir, 'setup-code'), 'utf8')).trim();
    secrets.push(setupCode);
    const res = await t.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
    const cookie = sessionCookieFrom(res);
    secrets.push(cookie.split('=')[1]);
    admin = t.api.withCookie(cookie);
    adminId = res.body.id;
    t.clock.advance(minute);

    marks.beforeUsers = t.clock.now().toISOString();
    nora = await createReadyUser(t, admin, 'nora');
    t.clock.advance(minute);
    marks.beforeTeams = t.clock.now().toISOString();
    team = (await admin.post<Team>('/teams', { name: 'audited' })).body;
    role = (await admin.post<Role>('/roles', { name: 'auditor', permissions: ['servers.read'] })).body;
    await admin.put(`/teams/${team.id}/members/${nora.userId}`, { roleIds: [role.id] });
    token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'audit-token' })).body;
    secrets.push(token.token);
    t.clock.advance(minute);
    marks.afterTeams = t.clock.now().toISOString();
    // Denied: a non-administrator; failed: a duplicate; denied: nobody signed in; failed: invalid body.
    await nora.client.post('/teams', { name: 'not-allowed' });
    await admin.post('/teams', { name: 'AUDITED' });
    await t.api.post('/teams', { name: 'anonymous' });
    await admin.post('/roles', { name: '', permissions: [] });
    await t.api.withToken(token.token).patch(`/teams/${team.id}`, { name: 'renamed-by-token' });
    const reset = await admin.post<PasswordResetIssued>(`/users/${nora.userId}/password-reset`);
    secrets.push(reset.body.token);
    await t.api.post('/auth/password-reset', { token: reset.body.token, newPassword: 'after-reset-pass' });
    secrets.push('after-reset-pass');
  });
  after(async () => t.dispose());

  const search = (query = '') => admin.get<AuditEventPage>(`/audit-events${query ? '?' + query : ''}`);

  it('only global administrators search the audit log (403 otherwise)', async () => {
    const noraClient = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: 'nora', password: 'after-reset-pass' })));
    expectProblem(await noraClient.get('/audit-events'), 403, 'forbidden');
    expectProblem(await t.api.get('/audit-events'), 401, 'unauthenticated');
  });

  it('writes an event for every state-changing request, with the event shape of the spec', async () => {
    const all = await allPages((c) => search(`limit=200${c ? `&cursor=${c}` : ''}`));
    const actions = new Set(all.map((e) => `${e.action}:${e.outcome}`));
    for (const expected of [
      'setup.complete:SUCCESS', 'user.create:SUCCESS', 'session.create:SUCCESS', 'user.password_change:SUCCESS',
      'team.create:SUCCESS', 'role.create:SUCCESS', 'team.member_set:SUCCESS', 'token.create:SUCCESS',
      'team.create:DENIED', 'team.create:FAILED', 'role.create:FAILED', 'team.update:SUCCESS',
      'user.password_reset_issue:SUCCESS', 'user.password_reset_redeem:SUCCESS',
    ]) expect(actions, expected).to.include(expected);
    for (const e of all) {
      expect(e.id).to.be.a('number');
      expect(Date.parse(e.occurredAt)).not.to.be.NaN;
      expect(e.actorKind).to.be.oneOf(['USER', 'API_TOKEN', 'AGENT', 'SYSTEM']);
      expect(e.outcome).to.be.oneOf(['SUCCESS', 'DENIED', 'FAILED']);
      expect(e.action).to.match(/^[a-z_]+\.[a-z_]+$/);
      expect(e.targetKind).to.be.a('string');
      expect(e.targetId).to.be.a('string');
      expect(e.details).to.be.an('object');
    }
    const created = all.find((e) => e.action === 'team.create' && e.outcome === 'SUCCESS');
    expect(created).to.include({ actorKind: 'USER', actorUserId: adminId, targetKind: 'team', targetId: team.id });
    expect(created?.details).to.include({ name: 'audited' });
  });

  it('records who acted: USER for the cookie, API_TOKEN for a bearer token; refusals are DENIED, but not a request without credentials', async () => {
    const byToken = (await search(`action=team.update&targetId=${team.id}`)).body.items[0];
    expect(byToken).to.include({ actorKind: 'API_TOKEN', actorUserId: adminId, outcome: 'SUCCESS' });
    const denied = (await search('action=team.create&outcome=DENIED')).body.items;
    expect(denied.map((e) => e.actorUserId)).to.include.members([nora.userId]);
    // A 401 is counted in cairn_auth_failures_total, not audited one by one (a flood must not grow the log).
    expect(denied.find((e) => e.actorUserId === undefined)).to.equal(undefined);
    const failed = (await search('action=team.create&outcome=FAILED')).body.items[0];
    expect(failed.details).to.include({ error: 'conflict' });
  });

  it('never stores secrets: no password, token, setup code, reset secret or session id anywhere in the log', async () => {
    const all = await search('limit=200');
    for (const secret of secrets) expect(all.text, 'a secret leaked into the audit log').not.to.include(secret);
    const files = await storedAuditText(t);
    expect(files).to.include('"action":"team.create"');
    for (const secret of secrets) expect(files).not.to.include(secret);
  });

  it('is newest first', async () => {
    const items = (await search('limit=200')).body.items;
    const ids = items.map((e) => e.id);
    expect(ids).to.deep.equal([...ids].sort((a: number, b: number) => b - a));
    const times = items.map((e) => e.occurredAt);
    expect(times).to.deep.equal([...times].sort().reverse());
  });

  it('filters by actorUserId, targetKind, targetId, action and outcome (alone and combined)', async () => {
    const byActor = (await search(`actorUserId=${nora.userId}&limit=200`)).body.items;
    expect(byActor.length).to.be.at.least(3);
    for (const e of byActor) expect(e.actorUserId).to.equal(nora.userId);

    const byKind = (await search('targetKind=role')).body.items;
    expect(byKind.length).to.be.at.least(2);
    for (const e of byKind) expect(e.targetKind).to.equal('role');

    const byTarget = (await search(`targetId=${role.id}`)).body.items;
    expect(byTarget).to.have.length(1);
    expect(byTarget[0]).to.include({ action: 'role.create', targetId: role.id });

    const byAction = (await search('action=team.member_set')).body.items;
    expect(byAction).to.have.length(1);
    expect(byAction[0].details).to.deep.include({ teamId: team.id, userId: nora.userId, roleIds: [role.id] });

    for (const outcome of ['SUCCESS', 'DENIED', 'FAILED']) {
      const items = (await search(`outcome=${outcome}&limit=200`)).body.items;
      expect(items.length, outcome).to.be.at.least(1);
      for (const e of items) expect(e.outcome).to.equal(outcome);
    }

    const combined = (await search(`action=team.create&outcome=SUCCESS&actorUserId=${adminId}&targetKind=team`)).body.items;
    expect(combined.map((e) => e.targetId)).to.deep.equal([team.id]);
    expect((await search(`action=team.create&outcome=SUCCESS&actorUserId=${nora.userId}`)).body.items).to.deep.equal([]);
    expect((await search('action=no.such')).body.items).to.deep.equal([]);
  });

  it('since is inclusive and until exclusive', async () => {
    const window = (await search(`since=${marks.beforeTeams}&until=${marks.afterTeams}&limit=200`)).body.items;
    expect(window.map((e) => e.action)).to.have.members(['team.create', 'role.create', 'team.member_set', 'token.create']);
    for (const e of window) expect(e.occurredAt >= marks.beforeTeams && e.occurredAt < marks.afterTeams).to.equal(true);

    // Events written exactly at a bound: `since` keeps them, `until` leaves them out.
    const at = (await search(`targetId=${team.id}&action=team.create`)).body.items[0].occurredAt;
    expect((await search(`targetId=${team.id}&action=team.create&since=${at}`)).body.items).to.have.length(1);
    expect((await search(`targetId=${team.id}&action=team.create&until=${at}`)).body.items).to.have.length(0);
    const later = new Date(Date.parse(at) + 1).toISOString();
    expect((await search(`targetId=${team.id}&action=team.create&until=${later}`)).body.items).to.have.length(1);
    expect((await search(`targetId=${team.id}&action=team.create&since=${later}`)).body.items).to.have.length(0);

    // Offsets are understood: the same instant written in another time zone.
    const users = (await search(`since=${marks.beforeUsers}&until=${marks.beforeTeams}&limit=200`)).body.items;
    const shifted = new Date(Date.parse(marks.beforeUsers)).toISOString().replace('Z', '+00:00');
    expect((await search(`since=${encodeURIComponent(shifted)}&until=${marks.beforeTeams}&limit=200`)).body.items).to.deep.equal(users);
    expect(users.map((e) => e.action)).to.include.members(['user.create', 'session.create', 'user.password_change']);
  });

  it('pages with the cursor under a filter', async () => {
    const pages = await allPages((c) => search(`outcome=SUCCESS&limit=2${c ? `&cursor=${c}` : ''}`));
    const once = (await search('outcome=SUCCESS&limit=200')).body.items;
    expect(pages).to.deep.equal(once);
  });

  it('refuses invalid filters with 400 naming the parameter', async () => {
    expectProblem(await search('actorUserId=not-a-uuid'), 400, 'invalid_request', 'query.actorUserId');
    expectProblem(await search('outcome=MAYBE'), 400, 'invalid_request', 'query.outcome');
    expectProblem(await search('since=yesterday'), 400, 'invalid_request', 'query.since');
    expectProblem(await search('until=2024-01-01'), 400, 'invalid_request', 'query.until');
    expectProblem(await search('limit=0'), 400, 'invalid_request', 'query.limit');
    expectProblem(await search('limit=201'), 400, 'invalid_request', 'query.limit');
    expectProblem(await search('colour=red'), 400, 'invalid_request', 'query.colour');
  });
});

describe('audit: refused sign-ins cannot flood the log', () => {
  let t: TestController;
  let admin: ApiClient;
  const failures = async (reason: string) => {
    const text = (await t.api.get('/metrics')).text;
    const match = new RegExp(`^cairn_auth_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
    return Number(match?.[1] ?? NaN);
  };
  const loginFailures = async () => (await allPages((c) => admin.get<AuditEventPage>(`/audit-events?action=auth.login&limit=200${c ? `&cursor=${c}` : ''}`)));
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('500 wrong sign-ins from one address: one aggregated auth.login event per account and address per minute, all counted in the metric', async () => {
    const flood = new ApiClient(t.baseUrl, {}, new Agent({ localAddress: '127.0.0.7' }));
    const sizeBefore = await auditBytes(t);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 500; i++) {
      const username = i % 2 === 0 ? 'admin' : 'nobody';
      const res = await flood.post('/auth/login', { username, password: `wrong-${i}` });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect(statuses.get(429)).to.be.greaterThan(400);
    // The owner signs in from elsewhere, the log grew by at most a few events.
    const owner = await t.api.post('/auth/login', { username: 'admin', password: adminCredentials.password });
    expect(owner.status).to.equal(200);
    let events = await loginFailures();
    expect(events).to.have.length(2);
    for (const e of events) expect(e).to.deep.include({ outcome: 'DENIED', targetKind: 'user' });
    expect(events.map((e) => e.details.count)).to.deep.equal([1, 1]);
    expect(events.find((e) => e.details.username === 'admin')?.details).to.include({ clientAddress: '127.0.0.7' });
    expect(await auditBytes(t) - sizeBefore).to.be.lessThan(20_000);
    expect((await failures('bad_password')) + (await failures('unknown_user')) + (await failures('throttled'))).to.equal(500);
    expect(await failures('throttled')).to.equal(statuses.get(429));

    // A minute on, the next failure writes the count since the last event.
    t.clock.advance(61_000);
    await flood.post('/auth/login', { username: 'admin', password: 'wrong-again' });
    await flood.post('/auth/login', { username: 'nobody', password: 'wrong-again' });
    events = await loginFailures();
    expect(events).to.have.length(4);
    expect(events.reduce((sum, e) => sum + Number(e.details.count), 0)).to.equal(502);
  });

  it('requests without valid credentials are counted, not audited', async () => {
    const before = (await allPages((c) => admin.get<AuditEventPage>(`/audit-events?limit=200${c ? `&cursor=${c}` : ''}`))).length;
    const missing = await failures('missing_credentials');
    const invalid = await failures('invalid_token');
    for (let i = 0; i < 100; i++) expectProblem(await t.api.post('/teams', { name: `t${i}` }), 401, 'unauthenticated');
    for (let i = 0; i < 50; i++) expectProblem(await t.api.withToken('cairn_not-a-token').post('/teams', { name: `t${i}` }), 401, 'unauthenticated');
    const after = (await allPages((c) => admin.get<AuditEventPage>(`/audit-events?limit=200${c ? `&cursor=${c}` : ''}`))).length;
    expect(after).to.equal(before);
    expect(await failures('missing_credentials')).to.equal(missing + 100);
    expect(await failures('invalid_token')).to.equal(invalid + 50);
  });
});

async function auditBytes(t: TestController): Promise<number> {
  return Buffer.byteLength(await storedAuditText(t));
}
