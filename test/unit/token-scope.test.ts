import { expect } from 'chai';
import type { Permission } from '../../src/controller/core/permission-names.js';
import { isGlobalAdmin, mayGlobally, scopeAllows, scopedTeams, unscoped } from '../../src/controller/domain/permissions.js';

const admin = { globalAdmin: true, globalPermissions: [] };
const keeper = { globalAdmin: false, globalPermissions: ['nodes.manage'] };
const scope = (permissions?: Permission[], teamIds?: string[]) => ({
  ...(permissions ? { permissions: new Set(permissions) } : {}),
  ...(teamIds ? { teamIds: new Set(teamIds) } : {}),
});

describe('token scopes (domain/permissions)', () => {
  it('lets an unscoped caller do anything its owner may, a scoped one only its permissions in its teams', () => {
    expect(scopeAllows(undefined, 'a', 'files.write')).to.equal(true);
    expect(scopeAllows(scope(['servers.start']), 'a', 'servers.start')).to.equal(true);
    expect(scopeAllows(scope(['servers.start']), 'a', 'servers.stop')).to.equal(false);
    expect(scopeAllows(scope(undefined, ['a']), 'a', 'files.write')).to.equal(true);
    expect(scopeAllows(scope(undefined, ['a']), 'b', 'servers.read')).to.equal(false);
    expect(scopeAllows(scope(['servers.read'], ['a']), 'b', 'servers.read')).to.equal(false);
  });

  it('never passes global administration or global permissions to a scoped token', () => {
    expect(isGlobalAdmin({ user: admin })).to.equal(true);
    expect(isGlobalAdmin({ user: admin, scope: scope(['servers.read']) })).to.equal(false);
    expect(mayGlobally({ user: keeper }, 'nodes.manage')).to.equal(true);
    expect(mayGlobally({ user: keeper, scope: scope(undefined, ['a']) }, 'nodes.manage')).to.equal(false);
    expect(isGlobalAdmin(unscoped({ user: admin, scope: scope(['servers.read']) }))).to.equal(true);
  });

  it('narrows the teams a caller may use a permission in', () => {
    expect(scopedTeams(undefined, undefined, 'servers.read')).to.equal(undefined);
    expect(scopedTeams(scope(['servers.read']), undefined, 'servers.read')).to.equal(undefined);
    expect(scopedTeams(scope(['servers.read']), ['a', 'b'], 'backups.read')).to.deep.equal([]);
    expect(scopedTeams(scope(undefined, ['b', 'c']), undefined, 'servers.read')).to.have.members(['b', 'c']);
    expect(scopedTeams(scope(['servers.read'], ['b', 'c']), ['a', 'b'], 'servers.read')).to.deep.equal(['b']);
  });
});
