import type { Shared } from '../store/collection.js';
import type { UserDoc } from '../store/records.js';

/** Who is making a request, once authenticated. */
export interface Caller {
  kind: 'USER' | 'API_TOKEN';
  user: Shared<UserDoc>;
  /** Hash of the session id, when signed in with the cookie. */
  sessionHash?: string;
  tokenId?: string;
}
