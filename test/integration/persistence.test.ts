import { expect } from 'chai';
import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createReadyUser, setupAdmin, startTestController, testStoreIsMongo, type TestController } from '../support/controller.js';
import type { AuditEventPage, CreatedApiToken, MembershipPage, Network, Role, RolePage, Team, TeamPage, User, UserPage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';

describe('persistence: a Controller restart keeps everything', () => {
  let t: TestController;
  let admin: ApiClient;
  let olga: { client: ApiClient; userId: string };
  let token: string;
  let team: Team;
  let role: Role;
  let snapshot: { users: UserPage; teams: TeamPage; roles: RolePage; members: MembershipPage; audit: AuditEventPage; network: Network };
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    olga = await createReadyUser(t, admin, 'olga');
    token = (await olga.client.post<CreatedApiToken>('/me/tokens', { name: 'persisted' })).body.token;
    team = (await admin.post<Team>('/teams', { name: 'durable' })).body;
    role = (await admin.post<Role>('/roles', { name: 'keeper', description: 'kept', permissions: ['files.read', 'files.write'] })).body;
    await admin.put(`/teams/${team.id}/members/${olga.userId}`, { roleIds: [role.id] });
    snapshot = {
      users: (await admin.get<UserPage>('/users')).body,
      teams: (await admin.get<TeamPage>('/teams')).body,
      roles: (await admin.get<RolePage>('/roles')).body,
      members: (await admin.get<MembershipPage>(`/teams/${team.id}/members`)).body,
      audit: (await admin.get<AuditEventPage>('/audit-events?limit=200')).body,
      network: (await admin.get<Network>('/network')).body,
    };
    t = await t.restart();
  });
  after(async () => t.dispose());

  it('keeps sessions: the same cookies still work', async () => {
    expect((await t.api.withCookie(admin.auth.cookie!).get<User>('/me')).body.username).to.equal('admin');
    expect((await t.api.withCookie(olga.client.auth.cookie!).get<User>('/me')).body.username).to.equal('olga');
  });

  it('keeps API tokens', async () => {
    expect((await t.api.withToken(token).get<User>('/me')).body.username).to.equal('olga');
  });

  it('keeps users (with their passwords), teams, roles, memberships and the network', async () => {
    admin = t.api.withCookie(admin.auth.cookie!);
    expect((await admin.get('/users')).body).to.deep.equal(snapshot.users);
    expect((await admin.get('/teams')).body).to.deep.equal(snapshot.teams);
    expect((await admin.get('/roles')).body).to.deep.equal(snapshot.roles);
    expect((await admin.get(`/teams/${team.id}/members`)).body).to.deep.equal(snapshot.members);
    expect((await admin.get('/network')).body).to.deep.equal(snapshot.network);
    expect((await t.api.post('/auth/login', { username: 'olga', password: 'second-password-2' })).status).to.equal(200);
    expect((await t.api.withCookie(olga.client.auth.cookie!).get<TeamPage>('/teams')).body.items).to.deep.equal([{ id: team.id, name: 'durable' }]);
  });

  it('keeps audit events, and new ones continue the ids', async () => {
    const after = (await admin.get<AuditEventPage>('/audit-events?limit=200')).body;
    // The first requests after the restart (logins above) are newer; the old ones are unchanged.
    const old = after.items.filter((e) => e.id <= snapshot.audit.items[0].id);
    expect(old).to.deep.equal(snapshot.audit.items);
    const created = await admin.post<Team>('/teams', { name: 'after-restart' });
    const latest = (await admin.get<AuditEventPage>('/audit-events?limit=1')).body.items[0];
    expect(latest).to.include({ action: 'team.create', targetId: created.body.id });
    expect(latest.id).to.be.greaterThan(snapshot.audit.items[0].id);
  });

  it('survives a torn last line in the store files (a crash mid-write) on the next start', async function () {
    // The files cut here are the embedded store's; MongoDB has its own journal.
    if (testStoreIsMongo) this.skip();
    const latest = (await admin.get<AuditEventPage>('/audit-events?limit=1')).body.items[0];
    await t.stop();
    await appendFile(join(t.dataDir, 'store', 'teams.db'), '{"_id":"half-writ');
    const auditDir = join(t.dataDir, 'store', 'audit');
    const activeSegment = (await readdir(auditDir)).filter((n) => n.endsWith('.jsonl')).sort().at(-1)!;
    await appendFile(join(auditDir, activeSegment), '{"id":99999,"occ');
    t = await t.restart();
    admin = t.api.withCookie(admin.auth.cookie!);
    expect((await admin.get<TeamPage>('/teams')).body.items.map((x) => x.name)).to.deep.equal(['durable', 'after-restart']);
    const top = (await admin.get<AuditEventPage>('/audit-events?limit=1')).body.items[0];
    expect(top).to.deep.equal(latest);
    await admin.post('/teams', { name: 'after-crash' });
    const next = (await admin.get<AuditEventPage>('/audit-events?limit=1')).body.items[0];
    expect(next).to.include({ id: latest.id + 1, action: 'team.create', outcome: 'SUCCESS' });
    expect((await readFile(join(t.dataDir, 'store', 'teams.db'), 'utf8'))).not.to.include('half-writ');
  });
});
