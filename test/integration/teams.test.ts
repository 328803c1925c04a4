import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { Membership, MembershipPage, Role, RolePage, Team, TeamDetail, TeamPage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const someId = '01900000-0000-7000-8000-000000000000';

describe('teams and memberships', () => {
  let t: TestController;
  let admin: ApiClient;
  let kim: { client: ApiClient; userId: string };
  let lee: { client: ApiClient; userId: string };
  let roles: Record<string, string>;
  let red: Team;
  let blue: Team;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    kim = await createReadyUser(t, admin, 'kim');
    lee = await createReadyUser(t, admin, 'lee');
    roles = Object.fromEntries((await admin.get<RolePage>('/roles')).body.items.map((r) => [r.name, r.id]));
  });
  after(async () => t.dispose());

  it('creates teams (201 {id, name}); names are unique regardless of case (409 conflict)', async () => {
    const res = await admin.post<Team>('/teams', { name: 'Red' });
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(['id', 'name']);
    red = res.body;
    blue = (await admin.post<Team>('/teams', { name: 'Blue' })).body;
    expectProblem(await admin.post('/teams', { name: 'RED' }), 409, 'conflict');
  });

  it('validates the name: 1..100 characters', async () => {
    expectProblem(await admin.post('/teams', { name: '' }), 400, 'invalid_request', 'body.name');
    expectProblem(await admin.post('/teams', { name: 'x'.repeat(101) }), 400, 'invalid_request', 'body.name');
    expect((await admin.post('/teams', { name: 'y'.repeat(100) })).status).to.equal(201);
    expectProblem(await admin.post('/teams', {}), 400, 'invalid_request', 'body.name');
    expectProblem(await admin.post('/teams', { name: 'red\u0000team' }), 400, 'invalid_request', 'body.name');
    expectProblem(await admin.post('/teams', { name: 'two\nlines' }), 400, 'invalid_request', 'body.name');
  });

  it('only global administrators create, rename and delete teams; outsiders do not learn a team exists (404)', async () => {
    expectProblem(await kim.client.post('/teams', { name: 'Kims' }), 403, 'forbidden');
    expectProblem(await kim.client.patch(`/teams/${red.id}`, { name: 'Kims' }), 404, 'not_found');
    expectProblem(await kim.client.delete(`/teams/${red.id}`), 404, 'not_found');
  });

  it('sets a membership with PUT (200 {userId, teamId, roleIds}) and replaces it on a second PUT', async () => {
    const res = await admin.put<Membership>(`/teams/${red.id}/members/${kim.userId}`, { roleIds: [roles.viewer] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ userId: kim.userId, teamId: red.id, roleIds: [roles.viewer] });
    const again = await admin.put<Membership>(`/teams/${red.id}/members/${kim.userId}`, { roleIds: [roles.viewer, roles.operator] });
    expect(again.body.roleIds).to.deep.equal([roles.viewer, roles.operator]);
    const members = await admin.get<MembershipPage>(`/teams/${red.id}/members`);
    expect(members.body.items).to.deep.equal([{ userId: kim.userId, teamId: red.id, roleIds: [roles.viewer, roles.operator] }]);
  });

  it('refuses memberships with unknown roles (400 naming roleIds), duplicate roles, unknown users or teams (404)', async () => {
    expectProblem(await admin.put(`/teams/${red.id}/members/${lee.userId}`, { roleIds: [someId] }), 400, 'invalid_request', 'body.roleIds');
    expectProblem(await admin.put(`/teams/${red.id}/members/${lee.userId}`, { roleIds: [roles.viewer, roles.viewer] }), 400, 'invalid_request', 'body.roleIds');
    expectProblem(await admin.put(`/teams/${red.id}/members/${lee.userId}`, { roleIds: ['nope'] }), 400, 'invalid_request', 'body.roleIds');
    expectProblem(await admin.put(`/teams/${red.id}/members/${lee.userId}`, {}), 400, 'invalid_request', 'body.roleIds');
    expectProblem(await admin.put(`/teams/${red.id}/members/${someId}`, { roleIds: [] }), 404, 'not_found');
    expectProblem(await admin.put(`/teams/${someId}/members/${lee.userId}`, { roleIds: [] }), 404, 'not_found');
    expectProblem(await kim.client.put(`/teams/${red.id}/members/${lee.userId}`, { roleIds: [] }), 403, 'forbidden');
    expectProblem(await kim.client.patch(`/teams/${red.id}`, { name: 'Kims' }), 403, 'forbidden');
    expectProblem(await kim.client.delete(`/teams/${red.id}`), 403, 'forbidden');
  });

  it('GET /teams lists only the caller\'s own teams; administrators see all, in creation order', async () => {
    const mine = await kim.client.get<TeamPage>('/teams');
    expect(mine.status).to.equal(200);
    expect(mine.body.items).to.deep.equal([{ id: red.id, name: 'Red' }]);
    expect((await lee.client.get<TeamPage>('/teams')).body.items).to.deep.equal([]);
    const all = await admin.get<TeamPage>('/teams');
    expect(all.body.items.map((x) => x.name)).to.deep.equal(['Red', 'Blue', 'y'.repeat(100)]);
  });

  it('a team the caller is not in is 404, also its members; its own team is visible', async () => {
    expectProblem(await kim.client.get(`/teams/${blue.id}`), 404, 'not_found');
    expectProblem(await kim.client.get(`/teams/${blue.id}/members`), 404, 'not_found');
    expectProblem(await kim.client.get(`/teams/${someId}`), 404, 'not_found');
    const own = await kim.client.get<TeamDetail>(`/teams/${red.id}`);
    expect(own.status).to.equal(200);
    expect(own.body).to.include({ id: red.id, name: 'Red' });
    expect(Date.parse(own.body.createdAt)).not.to.be.NaN;
    expect((await kim.client.get(`/teams/${red.id}/members`)).status).to.equal(200);
    expectProblem(await admin.get(`/teams/${someId}`), 404, 'not_found');
  });

  it('a member\'s permissions in a team are the union of its roles\' permissions', async () => {
    const custom = (await admin.post<Role>('/roles', { name: 'restarter', permissions: ['servers.start', 'servers.stop'] })).body;
    await admin.put(`/teams/${blue.id}/members/${lee.userId}`, { roleIds: [roles.viewer, custom.id] });
    const leeDoc = await t.controller.repos.users.findById(lee.userId);
    const held = await t.controller.services.access.permissionsIn(leeDoc!, blue.id);
    expect([...held]).to.include.members(['servers.read', 'files.read', 'servers.start', 'servers.stop']);
    expect(held.has('servers.delete')).to.equal(false);
    expect((await t.controller.services.access.permissionsIn(leeDoc!, red.id)).size).to.equal(0);
  });

  it('renames a team (200); a taken name is 409', async () => {
    const res = await admin.patch<TeamDetail>(`/teams/${blue.id}`, { name: 'Azure' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ id: blue.id, name: 'Azure' });
    expectProblem(await admin.patch(`/teams/${blue.id}`, { name: 'red' }), 409, 'conflict');
    expect((await admin.patch(`/teams/${blue.id}`, { name: 'AZURE' })).status).to.equal(200);
  });

  it('removes a member (204); removing again is 404; the user no longer sees the team', async () => {
    expect((await admin.delete(`/teams/${red.id}/members/${kim.userId}`)).status).to.equal(204);
    expectProblem(await admin.delete(`/teams/${red.id}/members/${kim.userId}`), 404, 'not_found');
    expectProblem(await kim.client.get(`/teams/${red.id}`), 404, 'not_found');
    expect((await kim.client.get<TeamPage>('/teams')).body.items).to.deep.equal([]);
  });

  it('deletes a team (204) with its memberships; then 404', async () => {
    expect((await admin.delete(`/teams/${blue.id}`)).status).to.equal(204);
    expectProblem(await admin.get(`/teams/${blue.id}`), 404, 'not_found');
    expectProblem(await admin.delete(`/teams/${blue.id}`), 404, 'not_found');
    expect(await t.controller.repos.memberships.count({ teamId: blue.id })).to.equal(0);
    expect((await lee.client.get<TeamPage>('/teams')).body.items).to.deep.equal([]);
  });
});
