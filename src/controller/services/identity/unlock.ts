import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import type { ServiceDeps } from '../deps.js';
import { hidden, type Access } from './access.js';
import type { AuthService } from './auth.js';
import type { TotpService } from './totp.js';

/**
 * A global administrator lifts the lockouts of an account that failed too often (a user who
 * mistyped, not an attacker, is then not made to wait out the window). The lockouts live in the
 * Controller's memory, so this is all there is to clear.
 */
export class UnlockService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly auth: Pick<AuthService, 'clearLockouts'>,
    private readonly totp: Pick<TotpService, 'clearLockouts'>,
  ) {}

  async unlock(caller: Caller, userId: string, audit: AuditScope): Promise<void> {
    audit.target(userId);
    this.access.requireGlobalAdmin(caller);
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    audit.detail({ username: user.username });
    this.auth.clearLockouts(user);
    this.totp.clearLockouts(user._id);
  }
}
