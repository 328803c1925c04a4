import { permissionValues, type GlobalPermission, type Permission } from '../core/permission-names.js';

const reads = permissionValues.filter((p) => p.endsWith('.read'));

export const builtinRoleDefinitions: { name: string; description: string; permissions: Permission[] }[] = [
  { name: 'viewer', description: 'Sees the team\'s servers, files, plugins, Nodes and backups.', permissions: [...reads] },
  {
    name: 'operator',
    description: 'Runs the team\'s servers day to day: power, console, files, plugins and backups.',
    permissions: [
      ...reads, 'servers.start', 'servers.stop', 'servers.console', 'servers.command',
      'files.write', 'files.delete', 'plugins.install', 'plugins.update', 'plugins.delete', 'backups.create',
    ],
  },
  { name: 'admin', description: 'Every permission in the team.', permissions: [...permissionValues] },
];

export interface PermissionSubject {
  globalAdmin: boolean;
  globalPermissions: readonly string[];
}

/** The permissions a user holds in one team: the union of its roles' permissions there. */
export function teamPermissions(roles: { permissions: string[] }[]): Set<Permission> {
  const set = new Set<Permission>();
  for (const role of roles) for (const p of role.permissions) set.add(p as Permission);
  return set;
}

/** May the user do `permission` in a team where it holds `inTeam`? Global administrators may do everything. */
export function mayInTeam(user: PermissionSubject, inTeam: ReadonlySet<Permission>, permission: Permission): boolean {
  return user.globalAdmin || inTeam.has(permission);
}

/** A global permission (today `nodes.manage`), held directly by the user or implied by global administration. */
export function mayGlobally(user: PermissionSubject, permission: GlobalPermission): boolean {
  return user.globalAdmin || user.globalPermissions.includes(permission);
}
