import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { Role, RolePage, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const someId = '01900000-0000-7000-8000-000000000000';
const allPermissions = [
  'servers.read', 'servers.create', 'servers.start', 'servers.stop', 'servers.delete', 'servers.console',
  'servers.command', 'servers.update', 'files.read', 'files.write', 'files.delete', 'plugins.read',
  'plugins.install', 'plugins.update', 'plugins.delete', 'nodes.read', 'nodes.manage', 'backups.read',
  'backups.create', 'backups.restore',
];
const reads = allPermissions.filter((p) => p.endsWith('.read'));

describe('roles', () => {
  let t: TestController;
  let admin: ApiClient;
  let mia: { client: ApiClient; userId: string };
  let builtins: Record<string, Role>;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    mia = await createReadyUser(t, admin, 'mia');
  });
  after(async () => t.dispose());

  it('lists the built-in roles first, with exactly the contract\'s permissions; any signed-in user may read', async () => {
    const res = await mia.client.get<RolePage>('/roles');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.items.map((r) => r.name)).to.deep.equal(['viewer', 'operator', 'admin']);
    builtins = Object.fromEntries(res.body.items.map((r) => [r.name, r]));
    for (const r of res.body.items) expect(r.builtin).to.equal(true);
    expect(builtins.viewer.permissions).to.have.members(reads);
    expect(builtins.operator.permissions).to.have.members([
      ...reads, 'servers.start', 'servers.stop', 'servers.console', 'servers.command',
      'files.write', 'files.delete', 'plugins.install', 'plugins.update', 'plugins.delete', 'backups.create',
    ]);
    expect(builtins.admin.permissions).to.have.members(allPermissions);
    expectProblem(await t.api.get('/roles'), 401, 'unauthenticated');
  });

  let custom: Role;
  it('creates a custom role (201)', async () => {
    const res = await admin.post<Role>('/roles', { name: 'deployer', description: 'Ships builds', permissions: ['servers.update', 'plugins.install'] });
    expect(res.status, res.text).to.equal(201);
    custom = res.body;
    expect(custom).to.include({ name: 'deployer', description: 'Ships builds', builtin: false });
    expect(custom.permissions).to.deep.equal(['servers.update', 'plugins.install']);
    expect((await mia.client.get(`/roles/${custom.id}`)).body).to.deep.equal(custom);
    const noDescription = await admin.post<Role>('/roles', { name: 'empty', permissions: [] });
    expect(noDescription.status).to.equal(201);
    expect(noDescription.body.description).to.equal('');
  });

  it('enforces the Limits table: name 1..100, description at most 500, unique and known permissions', async () => {
    expectProblem(await admin.post('/roles', { name: '', permissions: [] }), 400, 'invalid_request', 'body.name');
    expectProblem(await admin.post('/roles', { name: 'n'.repeat(101), permissions: [] }), 400, 'invalid_request', 'body.name');
    expectProblem(await admin.post('/roles', { name: 'bell\u0007', permissions: [] }), 400, 'invalid_request', 'body.name');
    expect((await admin.post('/roles', { name: 'n'.repeat(100), permissions: [] })).status).to.equal(201);
    expect((await admin.post('/roles', { name: 'd500', description: 'd'.repeat(500), permissions: [] })).status).to.equal(201);
    expectProblem(await admin.post('/roles', { name: 'd501', description: 'd'.repeat(501), permissions: [] }), 400, 'invalid_request', 'body.description');
    expectProblem(await admin.post('/roles', { name: 'dup', permissions: ['files.read', 'files.read'] }), 400, 'invalid_request', 'body.permissions');
    expectProblem(await admin.post('/roles', { name: 'unknown', permissions: ['servers.fly'] }), 400, 'invalid_request', 'body.permissions');
    expectProblem(await admin.post('/roles', { name: 'case', permissions: ['Servers.Read'] }), 400, 'invalid_request', 'body.permissions');
    expectProblem(await admin.post('/roles', { name: 'missing' }), 400, 'invalid_request', 'body.permissions');
    expectProblem(await admin.post('/roles', { name: 'extra', permissions: [], builtin: true }), 400, 'invalid_request', 'body.builtin');
    expectProblem(await admin.patch(`/roles/${custom.id}`, { name: '' }), 400, 'invalid_request', 'body.name');
    expectProblem(await admin.patch(`/roles/${custom.id}`, { description: 'd'.repeat(501) }), 400, 'invalid_request', 'body.description');
    expectProblem(await admin.patch(`/roles/${custom.id}`, { permissions: ['files.read', 'files.read'] }), 400, 'invalid_request', 'body.permissions');
    expectProblem(await admin.patch(`/roles/${custom.id}`, {}), 400, 'invalid_request');
  });

  it('role names are unique regardless of case (409 conflict), also against built-in ones', async () => {
    expectProblem(await admin.post('/roles', { name: 'DEPLOYER', permissions: [] }), 409, 'conflict');
    expectProblem(await admin.post('/roles', { name: 'Viewer', permissions: [] }), 409, 'conflict');
    expectProblem(await admin.patch(`/roles/${custom.id}`, { name: 'empty' }), 409, 'conflict');
  });

  it('PATCH changes a custom role; permissions replace the whole set', async () => {
    const res = await admin.patch<Role>(`/roles/${custom.id}`, { permissions: ['files.read'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.permissions).to.deep.equal(['files.read']);
    expect(res.body).to.include({ name: 'deployer', description: 'Ships builds' });
    const renamed = await admin.patch<Role>(`/roles/${custom.id}`, { name: 'shipper', description: '' });
    expect(renamed.body).to.include({ name: 'shipper', description: '' });
    expect((await admin.get(`/roles/${custom.id}`)).body).to.deep.equal(renamed.body);
  });

  it('built-in roles cannot be changed or deleted: 409 builtin_role', async () => {
    expectProblem(await admin.patch(`/roles/${builtins.viewer.id}`, { description: 'changed' }), 409, 'builtin_role');
    expectProblem(await admin.patch(`/roles/${builtins.admin.id}`, { permissions: [] }), 409, 'builtin_role');
    expectProblem(await admin.delete(`/roles/${builtins.operator.id}`), 409, 'builtin_role');
    expect((await admin.get(`/roles/${builtins.viewer.id}`)).body).to.deep.equal(builtins.viewer);
  });

  it('non-administrators get 403 on role changes', async () => {
    expectProblem(await mia.client.post('/roles', { name: 'mine', permissions: [] }), 403, 'forbidden');
    expectProblem(await mia.client.patch(`/roles/${custom.id}`, { name: 'mine' }), 403, 'forbidden');
    expectProblem(await mia.client.delete(`/roles/${custom.id}`), 403, 'forbidden');
  });

  it('unknown roles are 404', async () => {
    expectProblem(await admin.get(`/roles/${someId}`), 404, 'not_found');
    expectProblem(await admin.patch(`/roles/${someId}`, { name: 'x' }), 404, 'not_found');
    expectProblem(await admin.delete(`/roles/${someId}`), 404, 'not_found');
  });

  it('a role in use by a membership cannot be deleted (409); once unassigned it can (204)', async () => {
    const team = (await admin.post<Team>('/teams', { name: 'ops' })).body;
    await admin.put(`/teams/${team.id}/members/${mia.userId}`, { roleIds: [builtins.viewer.id, custom.id] });
    expectProblem(await admin.delete(`/roles/${custom.id}`), 409, 'conflict');
    await admin.put(`/teams/${team.id}/members/${mia.userId}`, { roleIds: [builtins.viewer.id] });
    expect((await admin.delete(`/roles/${custom.id}`)).status).to.equal(204);
    expectProblem(await admin.get(`/roles/${custom.id}`), 404, 'not_found');
  });

  it('the built-in roles survive a restart unchanged and are not duplicated', async () => {
    t = await t.restart();
    const res = await t.api.withCookie(admin.auth.cookie!).get<RolePage>('/roles?limit=200');
    const names = res.body.items.map((r) => r.name);
    expect(names.filter((n: string) => ['viewer', 'operator', 'admin'].includes(n))).to.deep.equal(['viewer', 'operator', 'admin']);
    expect(res.body.items.find((r) => r.name === 'viewer')).to.deep.equal(builtins.viewer);
  });
});
