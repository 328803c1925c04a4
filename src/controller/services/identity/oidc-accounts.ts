import type { AuditScope } from '../../core/audit-scope.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { MembershipDoc, UserDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { AccessEvents } from './access-events.js';
import { baseUsername, groupsOf, mappedMemberships } from './oidc-groups.js';
import type { OidcConfig } from './oidc-settings.js';

/** Tries of `<name>-2`, `<name>-3`, ... before giving up on a free username. */
const usernameTries = 50;

/**
 * The Cairn user behind a provider's identity. Users are keyed by issuer and subject alone: an
 * email the provider vouches for never takes over an existing account, which could otherwise be
 * had by anyone able to set that email at the provider.
 */
export class OidcAccounts {
  constructor(private readonly deps: ServiceDeps, private readonly accessEvents: AccessEvents) {}

  /** The user for the claims (made at the first sign-in), its rights set from its groups. */
  async signIn(config: OidcConfig, claims: Record<string, unknown> & { sub: string }, audit: AuditScope): Promise<UserDoc> {
    const identity = { issuer: config.issuer, subject: claims.sub };
    let user = await this.find(identity);
    if (!user) {
      user = await this.create(identity, claims);
      audit.detail({ created: true });
    }
    audit.actorUserId = user._id;
    audit.target(user._id).detail({ username: user.username });
    return (await this.applyGroups(user, config, groupsOf(claims, config.groupsClaim), audit)).user;
  }

  /** Sets the user's rights from the groups the provider now gives it; whether they changed. */
  async refresh(user: UserDoc, config: OidcConfig, claims: Record<string, unknown>, audit: AuditScope): Promise<boolean> {
    return (await this.applyGroups(user, config, groupsOf(claims, config.groupsClaim), audit)).changed;
  }

  private find(identity: { issuer: string; subject: string }): Promise<UserDoc | null> {
    return this.deps.repos.users.findOne({ 'identity.subject': identity.subject, 'identity.issuer': identity.issuer });
  }

  private async create(identity: { issuer: string; subject: string }, claims: Record<string, unknown>): Promise<UserDoc> {
    const base = baseUsername(claims);
    const now = nowIso(this.deps);
    const email = typeof claims.email === 'string' && claims.email.length <= 254 ? claims.email : '';
    const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 100) : undefined;
    for (let n = 1; n <= usernameTries; n++) {
      const username = n === 1 ? base : `${base}-${n}`;
      const doc: UserDoc = {
        _id: this.deps.ids.next(),
        username,
        usernameKey: username.toLowerCase(),
        email,
        // Unique per identity rather than the email: the email may be an existing user's, and two
        // first sign-ins of one identity at once collide here instead of making two users.
        emailKey: `oidc ${identity.issuer} ${identity.subject}`,
        displayName: name ?? username,
        // An empty hash never verifies: this user has no password until an administrator issues a reset.
        passwordHash: '',
        globalAdmin: false,
        globalPermissions: [],
        passwordChangeRequired: false,
        identity,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await this.deps.repos.users.insert(doc);
        return doc;
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
        if (e.field !== 'usernameKey') {
          const raced = await this.find(identity);
          if (raced) return raced;
          throw e;
        }
      }
    }
    throw new Error(`no free username from ${base} after ${usernameTries} tries`);
  }

  /**
   * Global administration from `adminGroups`, and memberships of the mapped teams from
   * `teamMappings`, at every sign-in and every re-validation of a session (oidc-standing.ts), so a
   * change at the provider counts within minutes. Memberships of teams no mapping names are the
   * administrators' business and stay. Records that the provider vouched for the user now.
   */
  private async applyGroups(user: UserDoc, config: OidcConfig, groups: string[], audit: AuditScope): Promise<{ user: UserDoc; changed: boolean }> {
    const { repos } = this.deps;
    const now = nowIso(this.deps);
    let globalAdmin = config.adminGroups.some((g) => groups.includes(g));
    // The last global administrator stays one, as PATCH /users keeps it: nobody could administer the Controller otherwise.
    if (user.globalAdmin && !globalAdmin && (await repos.users.count({ globalAdmin: true, _id: { $ne: user._id } })) === 0) globalAdmin = true;
    const identity = { issuer: config.issuer, subject: user.identity?.subject ?? '', checkedAt: now };
    await repos.users.update({ _id: user._id }, globalAdmin === user.globalAdmin ? { identity } : { identity, globalAdmin, updatedAt: now });
    if (globalAdmin !== user.globalAdmin) this.accessEvents.publish({ userId: user._id, kind: 'user_rights_changed' });
    const teams: Record<string, string[] | null> = {};
    for (const [teamId, wanted] of mappedMemberships(config.teamMappings, groups)) {
      const changed = await this.setMembership(teamId, user._id, wanted, now);
      if (changed) teams[teamId] = wanted ?? null;
    }
    audit.detail({ groups: groups.slice(0, 50), globalAdmin, ...(Object.keys(teams).length > 0 ? { teams } : {}) });
    return { user: { ...user, globalAdmin, identity }, changed: globalAdmin !== user.globalAdmin || Object.keys(teams).length > 0 };
  }

  /** Puts the user in the team with exactly `roleIds`, or out of it; whether anything changed. */
  private async setMembership(teamId: string, userId: string, roleIds: string[] | undefined, now: string): Promise<boolean> {
    const { repos } = this.deps;
    const id = `${teamId}:${userId}`;
    const existing = await repos.memberships.findById(id);
    if (!roleIds) {
      if (!existing) return false;
      await repos.memberships.delete({ _id: id });
      this.accessEvents.publish({ userId, kind: 'membership_changed' });
      return true;
    }
    // A team or role deleted since the setting was saved is skipped, not recreated.
    if (!(await repos.teams.findById(teamId))) return false;
    const kept = (await repos.roles.find({ _id: { $in: roleIds } })).map((r) => r._id).sort();
    if (existing && sameSet(existing.roleIds, kept)) return false;
    const doc: MembershipDoc = { _id: id, teamId, userId, roleIds: kept, seq: existing?.seq ?? this.deps.ids.next(), createdAt: existing?.createdAt ?? now, updatedAt: now };
    if (existing) {
      await repos.memberships.replace({ _id: id }, doc);
      this.accessEvents.publish({ userId, kind: 'membership_changed' });
    } else await repos.memberships.insert(doc);
    return true;
  }
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
