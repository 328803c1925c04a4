import type { Caller, CallerUser } from '../../core/caller.js';
import { forbidden, DomainError } from '../../core/errors.js';
import type { GlobalPermission, Permission } from '../../core/permission-names.js';
import { isGlobalAdmin, mayGlobally, mayInTeam, scopeAllows, scopedTeams, teamPermissions } from '../../domain/permissions.js';
import type { Repositories } from '../../store/repositories.js';

/** Not found, recorded as DENIED: the caller may not see it, and must not learn that it exists. */
export const hidden = (what: string) => new DomainError('not_found', `No such ${what}.`, { denied: true });

/**
 * The one permission module every route goes through: "may user U do P in team T".
 * A caller who holds nothing at all in a team cannot see its resources (not found);
 * one who can see them but lacks the permission is refused (forbidden). A scoped API token
 * sees what its owner sees, and acts only within its scope (forbidden beyond it).
 */
export class Access {
  constructor(private readonly repos: Repositories) {}

  async permissionsIn(user: Pick<CallerUser, '_id'>, teamId: string): Promise<Set<Permission>> {
    const membership = await this.repos.memberships.findById(`${teamId}:${user._id}`);
    if (!membership || membership.roleIds.length === 0) return new Set();
    const roles = await this.repos.roles.find({ _id: { $in: membership.roleIds } });
    return teamPermissions(roles);
  }

  /** Whether the caller may use `permission` in the team: its owner holds it (global administrators always do) and its scope allows it. */
  async may(caller: Caller, teamId: string, permission: Permission): Promise<boolean> {
    if (!scopeAllows(caller.scope, teamId, permission)) return false;
    return caller.user.globalAdmin || (await this.permissionsIn(caller.user, teamId)).has(permission);
  }

  async isMember(user: Pick<CallerUser, '_id'>, teamId: string): Promise<boolean> {
    return (await this.repos.memberships.findById(`${teamId}:${user._id}`)) !== null;
  }

  /** Throws not_found when the caller may not see the team's `what`, forbidden when it may see but not act. */
  async require(caller: Caller, teamId: string, permission: Permission, what: string, readPermission: Permission): Promise<void> {
    const outOfScope = !scopeAllows(caller.scope, teamId, permission);
    if (caller.user.globalAdmin) {
      if (outOfScope) throw forbidden(`This API token's scope does not include ${permission} in this team.`);
      return;
    }
    const held = await this.permissionsIn(caller.user, teamId);
    if (!mayInTeam(caller.user, held, readPermission)) throw hidden(what);
    if (outOfScope) throw forbidden(`This API token's scope does not include ${permission} in this team.`);
    if (!mayInTeam(caller.user, held, permission)) throw forbidden(`You need ${permission} in this team.`);
  }

  /** Team ids in which the caller may use `permission` (undefined: all teams, for global administrators and their unscoped tokens). */
  async teamsWith(caller: Caller, permission: Permission): Promise<string[] | undefined> {
    return scopedTeams(caller.scope, await this.ownerTeamsWith(caller.user, permission), permission);
  }

  private async ownerTeamsWith(user: Pick<CallerUser, '_id' | 'globalAdmin'>, permission: Permission): Promise<string[] | undefined> {
    if (user.globalAdmin) return undefined;
    const memberships = await this.repos.memberships.find({ userId: user._id });
    const roleIds = [...new Set(memberships.flatMap((m) => m.roleIds))];
    const roles = new Map((await this.repos.roles.find({ _id: { $in: roleIds } })).map((r) => [r._id, r]));
    return memberships
      .filter((m) => m.roleIds.some((id) => roles.get(id)?.permissions.includes(permission)))
      .map((m) => m.teamId);
  }

  /** The account's own settings (tokens, password, profile) are never a scoped token's to change: it could widen itself. */
  requireUnscoped(caller: Caller): void {
    if (caller.scope) throw forbidden('A scoped API token cannot change its account (tokens, password, profile); use an unscoped token or sign in.');
  }

  requireGlobalAdmin(caller: Caller): void {
    if (!isGlobalAdmin(caller)) throw forbidden(caller.scope && caller.user.globalAdmin ? 'A scoped API token never carries global administration.' : 'Only global administrators may do this.');
  }

  requireGlobal(caller: Caller, permission: GlobalPermission): void {
    if (!mayGlobally(caller, permission)) throw forbidden(caller.scope ? `A scoped API token never carries the global permission ${permission}.` : `You need the global permission ${permission}.`);
  }
}
