import type { Permission } from './permission-names.js';
import type { Shared } from '../store/collection.js';
import type { UserDoc } from '../store/records.js';

/** Who is making a request, once authenticated; one object may serve many requests of a session (services/sessions.ts), so nothing changes it. */
export interface Caller {
  readonly kind: 'USER' | 'API_TOKEN';
  readonly user: Shared<UserDoc>;
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
