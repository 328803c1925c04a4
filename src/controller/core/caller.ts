import type { Permission } from './permission-names.js';

/**
 * The user a caller acts as, as requests read them: who (id and name), what they may do
 * everywhere, and what they must do first. Made from the stored user by `callerUser`
 * (services/identity/caller-user.ts); the record's secrets and lookup keys stay in the store.
 */
export interface CallerUser {
  readonly _id: string;
  readonly username: string;
  readonly globalAdmin: boolean;
  readonly globalPermissions: readonly string[];
  readonly passwordChangeRequired: boolean;
}

/** Who is making a request, once authenticated; one object may serve many requests of a session (services/identity/sessions.ts), so nothing changes it. */
export interface Caller {
  readonly kind: 'USER' | 'API_TOKEN';
  readonly user: CallerUser;
  /** Hash of the session id, when signed in with the cookie. */
  readonly sessionHash?: string;
  readonly tokenId?: string;
  /** A scoped API token's limits: what it may do never exceeds its owner's, nor these. */
  readonly scope?: TokenScope;
}

/**
 * What a scoped API token may do, within what its owner may: only these team permissions
 * (all when absent), only in these teams (all its owner's when absent), and no global power.
 */
export interface TokenScope {
  readonly permissions?: ReadonlySet<Permission>;
  readonly teamIds?: ReadonlySet<string>;
}
