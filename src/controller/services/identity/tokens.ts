import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller, TokenScope } from '../../core/caller.js';
import type { Permission } from '../../core/permission-names.js';
import { invalidRequest, notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { apiTokenPrefix, newApiToken, sameHash, sha256 } from '../../security/secrets.js';
import type { ApiTokenDoc, UserDoc } from '../../store/records.js';
import type { Access } from './access.js';
import type { AccessEvents } from './access-events.js';
import { nowIso, type ServiceDeps } from '../deps.js';

const touchEverySeconds = 60;

const tokenView = (t: ApiTokenDoc) => ({
  id: t._id,
  name: t.name,
  createdAt: t.createdAt,
  ...(t.expiresAt ? { expiresAt: t.expiresAt } : {}),
  ...(t.lastUsedAt ? { lastUsedAt: t.lastUsedAt } : {}),
  ...(t.permissions ? { permissions: [...t.permissions] as Permission[] } : {}),
  ...(t.teamIds ? { teamIds: [...t.teamIds] } : {}),
});

/** A stored token's scope as callers carry it; undefined for an unscoped token. */
export function scopeOf(t: Pick<ApiTokenDoc, 'permissions' | 'teamIds'>): TokenScope | undefined {
  if (!t.permissions && !t.teamIds) return undefined;
  return {
    ...(t.permissions ? { permissions: new Set(t.permissions as Permission[]) } : {}),
    ...(t.teamIds ? { teamIds: new Set(t.teamIds) } : {}),
  };
}

/** Whether a single sign-on user still stands at its provider, as their tokens need (oidc-standing.ts). */
export interface OwnerStanding {
  /** The owner as the provider now sees it; undefined when its standing cannot be renewed. */
  confirmOwner(user: UserDoc): Promise<UserDoc | undefined>;
}

/**
 * Personal API tokens: `cairn_pat_…`, shown once, stored as SHA-256, presented as `Authorization: Bearer`.
 * A token of a user made by single sign-on works only while the provider still vouches for its owner.
 */
export class TokenService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly accessEvents: AccessEvents,
    private readonly access: Access,
    private readonly standing?: OwnerStanding,
  ) {}

  async create(caller: Caller, input: { name: string; expiresAt?: string; permissions?: Permission[]; teamIds?: string[] }, audit: AuditScope) {
    this.access.requireUnscoped(caller);
    await this.checkTeams(caller, input.teamIds);
    if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= this.deps.clock.now().getTime()) {
      throw invalidRequest('body.expiresAt: must be in the future.');
    }
    const token = newApiToken();
    const doc: ApiTokenDoc = {
      _id: this.deps.ids.next(),
      userId: caller.user._id,
      name: input.name,
      hash: sha256(token),
      createdAt: nowIso(this.deps),
      ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}),
      ...(input.permissions ? { permissions: [...input.permissions] } : {}),
      ...(input.teamIds ? { teamIds: [...input.teamIds] } : {}),
    };
    await this.deps.repos.apiTokens.insert(doc);
    audit.target(doc._id).detail({ name: doc.name, ...(doc.permissions ? { permissions: doc.permissions } : {}), ...(doc.teamIds ? { teamIds: doc.teamIds } : {}) });
    return { ...tokenView(doc), token };
  }

  /** A scope names teams the owner is in (any team for a global administrator) and that exist. */
  private async checkTeams(caller: Caller, teamIds: string[] | undefined): Promise<void> {
    for (const [i, teamId] of (teamIds ?? []).entries()) {
      const inTeam = caller.user.globalAdmin
        ? (await this.deps.repos.teams.findById(teamId)) !== null
        : (await this.deps.repos.memberships.findById(`${teamId}:${caller.user._id}`)) !== null;
      if (!inTeam) throw invalidRequest(`body.teamIds[${i}]: ${teamId} is not a team of yours.`);
    }
  }

  /** The owner's tokens; a scoped token sees only itself, so a narrow credential does not map its owner's others. */
  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    const mine = caller.scope && caller.tokenId !== undefined ? { userId: caller.user._id, _id: caller.tokenId } : { userId: caller.user._id };
    const result = await paginate<ApiTokenDoc, string>(
      page,
      (after, limit) => this.deps.repos.apiTokens.find(after === undefined ? mine : { $and: [mine, { _id: { $gt: after } }] }, { sort: { _id: 1 }, limit }),
      (t) => t._id,
    );
    return { ...result, items: result.items.map(tokenView) };
  }

  async revoke(caller: Caller, tokenId: string, audit: AuditScope): Promise<void> {
    audit.target(tokenId);
    this.access.requireUnscoped(caller);
    if (!(await this.end(caller.user._id, tokenId))) throw notFound('token');
  }

  /** Ends one token of the user; false when it had no such token. */
  async end(userId: string, tokenId: string): Promise<boolean> {
    const removed = await this.deps.repos.apiTokens.delete({ _id: tokenId, userId });
    if (removed > 0) this.accessEvents.publish({ userId, kind: 'token_ended' });
    return removed > 0;
  }

  async endAllFor(userId: string): Promise<void> {
    await this.deps.repos.apiTokens.delete({ userId });
    this.accessEvents.publish({ userId, kind: 'token_ended' });
  }

  /** Whether the token still lets its holder in; a read only (no use recorded): what open streams re-check. */
  async isLive(tokenId: string): Promise<boolean> {
    const doc = await this.deps.repos.apiTokens.findById(tokenId);
    if (!doc || (doc.expiresAt && this.deps.clock.now().getTime() >= Date.parse(doc.expiresAt))) return false;
    const user = await this.deps.repos.users.findById(doc.userId);
    return user !== null && (await this.standingOf(user)) !== undefined;
  }

  private async standingOf(user: UserDoc): Promise<UserDoc | undefined> {
    return user.identity && this.standing ? this.standing.confirmOwner(user) : user;
  }

  /** The token's owner, or undefined for an unknown, malformed or expired token. */
  async resolve(token: string): Promise<{ user: UserDoc; tokenId: string; scope?: TokenScope } | undefined> {
    if (!token.startsWith(apiTokenPrefix) || token.length > 200) return undefined;
    const hash = sha256(token);
    const doc = await this.deps.repos.apiTokens.findOne({ hash });
    if (!doc || !sameHash(doc.hash, hash)) return undefined;
    const now = this.deps.clock.now().getTime();
    if (doc.expiresAt && now >= Date.parse(doc.expiresAt)) return undefined;
    const found = await this.deps.repos.users.findById(doc.userId);
    const user = found && (await this.standingOf(found));
    if (!user) return undefined;
    if (!doc.lastUsedAt || now - Date.parse(doc.lastUsedAt) >= touchEverySeconds * 1000) {
      await this.deps.repos.apiTokens.update({ _id: doc._id }, { lastUsedAt: nowIso(this.deps) });
    }
    const scope = await this.scopeFor(doc, user);
    return { user, tokenId: doc._id, ...(scope ? { scope } : {}) };
  }

  /**
   * A scoped token without `teamIds` acts in its owner's teams. For a global administrator that is
   * the teams it is a member of, not every team: acting everywhere is administration, which never
   * passes to a scoped token.
   */
  private async scopeFor(doc: ApiTokenDoc, user: UserDoc): Promise<TokenScope | undefined> {
    const scope = scopeOf(doc);
    if (!scope || scope.teamIds || !user.globalAdmin) return scope;
    const memberships = await this.deps.repos.memberships.find({ userId: user._id });
    return { ...scope, teamIds: new Set(memberships.map((m) => m.teamId)) };
  }
}
