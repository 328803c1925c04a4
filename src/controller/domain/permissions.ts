import type { TokenScope } from '../core/caller.js';
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

/** Who acts: a user, and when through a scoped API token, that token's limits. */
export interface Actor {
  readonly user: PermissionSubject;
  readonly scope?: TokenScope;
}

/** May the user do `permission` in a team where it holds `inTeam`? Global administrators may do everything. */
export function mayInTeam(user: PermissionSubject, inTeam: ReadonlySet<Permission>, permission: Permission): boolean {
  return user.globalAdmin || inTeam.has(permission);
}

/** The same caller without its token's scope: what its owner may see decides not found against forbidden. */
export const unscoped = <A extends Actor>(actor: A): A => (actor.scope === undefined ? actor : { ...actor, scope: undefined });

/** Global administration acts only unscoped: a scoped token never carries it. */
export function isGlobalAdmin(actor: Actor): boolean {
  return actor.user.globalAdmin && actor.scope === undefined;
}

/** A global permission (today `nodes.manage`), held directly by the user or implied by global administration; never through a scoped token. */
export function mayGlobally(actor: Actor, permission: GlobalPermission): boolean {
  return actor.scope === undefined && (actor.user.globalAdmin || actor.user.globalPermissions.includes(permission));
}

/** Does the token's scope (none: no limit) let it use `permission` in the team? */
export function scopeAllows(scope: TokenScope | undefined, teamId: string, permission: Permission): boolean {
  if (!scope) return true;
  return (scope.permissions === undefined || scope.permissions.has(permission)) && (scope.teamIds === undefined || scope.teamIds.has(teamId));
}

/**
 * The teams among `ownerTeams` (undefined: all) where the scope lets the token use `permission`;
 * undefined still means all teams.
 */
export function scopedTeams(scope: TokenScope | undefined, ownerTeams: string[] | undefined, permission: Permission): string[] | undefined {
  if (!scope) return ownerTeams;
  if (scope.permissions !== undefined && !scope.permissions.has(permission)) return [];
  if (scope.teamIds === undefined) return ownerTeams;
  return ownerTeams === undefined ? [...scope.teamIds] : ownerTeams.filter((t) => scope.teamIds!.has(t));
}
