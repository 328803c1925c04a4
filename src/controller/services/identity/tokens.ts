import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest, notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { apiTokenPrefix, newApiToken, sameHash, sha256 } from '../../security/secrets.js';
import type { ApiTokenDoc, UserDoc } from '../../store/records.js';
import type { AccessEvents } from './access-events.js';
import { nowIso, type ServiceDeps } from '../deps.js';

const touchEverySeconds = 60;

const tokenView = (t: ApiTokenDoc) => ({
  id: t._id,
  name: t.name,
  createdAt: t.createdAt,
  ...(t.expiresAt ? { expiresAt: t.expiresAt } : {}),
  ...(t.lastUsedAt ? { lastUsedAt: t.lastUsedAt } : {}),
});

/** Personal API tokens: `cairn_pat_…`, shown once, stored as SHA-256, presented as `Authorization: Bearer`. */
export class TokenService {
  constructor(private readonly deps: ServiceDeps, private readonly access: AccessEvents) {}

  async create(caller: Caller, input: { name: string; expiresAt?: string }, audit: AuditScope) {
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
    };
    await this.deps.repos.apiTokens.insert(doc);
    audit.target(doc._id).detail({ name: doc.name });
    return { ...tokenView(doc), token };
  }

  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    const result = await paginate<ApiTokenDoc, string>(
      page,
      (after, limit) => this.deps.repos.apiTokens.find(
        after === undefined ? { userId: caller.user._id } : { userId: caller.user._id, _id: { $gt: after } },
        { sort: { _id: 1 }, limit },
      ),
      (t) => t._id,
    );
    return { ...result, items: result.items.map(tokenView) };
  }

  async revoke(caller: Caller, tokenId: string, audit: AuditScope): Promise<void> {
    audit.target(tokenId);
    if (!(await this.end(caller.user._id, tokenId))) throw notFound('token');
  }

  /** Ends one token of the user; false when it had no such token. */
  async end(userId: string, tokenId: string): Promise<boolean> {
    const removed = await this.deps.repos.apiTokens.delete({ _id: tokenId, userId });
    if (removed > 0) this.access.publish({ userId, kind: 'token_ended' });
    return removed > 0;
  }

  async endAllFor(userId: string): Promise<void> {
    await this.deps.repos.apiTokens.delete({ userId });
    this.access.publish({ userId, kind: 'token_ended' });
  }

  /** Whether the token still lets its holder in; a read only (no use recorded): what open streams re-check. */
  async isLive(tokenId: string): Promise<boolean> {
    const doc = await this.deps.repos.apiTokens.findById(tokenId);
    return doc !== null && !(doc.expiresAt && this.deps.clock.now().getTime() >= Date.parse(doc.expiresAt));
  }

  /** The token's owner, or undefined for an unknown, malformed or expired token. */
  async resolve(token: string): Promise<{ user: UserDoc; tokenId: string } | undefined> {
    if (!token.startsWith(apiTokenPrefix) || token.length > 200) return undefined;
    const hash = sha256(token);
    const doc = await this.deps.repos.apiTokens.findOne({ hash });
    if (!doc || !sameHash(doc.hash, hash)) return undefined;
    const now = this.deps.clock.now().getTime();
    if (doc.expiresAt && now >= Date.parse(doc.expiresAt)) return undefined;
    const user = await this.deps.repos.users.findById(doc.userId);
    if (!user) return undefined;
    if (!doc.lastUsedAt || now - Date.parse(doc.lastUsedAt) >= touchEverySeconds * 1000) {
      await this.deps.repos.apiTokens.update({ _id: doc._id }, { lastUsedAt: nowIso(this.deps) });
    }
    return { user, tokenId: doc._id };
  }
}
