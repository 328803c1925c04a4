import type { Shared } from '../store/collection.js';
import type { UserDoc } from '../store/records.js';

/** Who is making a request, once authenticated; one object may serve many requests of a session (services/sessions.ts), so nothing changes it. */
export interface Caller {
  readonly kind: 'USER' | 'API_TOKEN';
  readonly user: Shared<UserDoc>;
  /** Hash of the session id, when signed in with the cookie. */
  readonly sessionHash?: string;
  readonly tokenId?: string;
}
