import type { AuditScope } from '../../core/audit-scope.js';
import type { LoginFailureLog } from '../audit/login-failures.js';
import type { Caller } from '../../core/caller.js';
import { forbidden, invalidRequest, DomainError } from '../../core/errors.js';
import { AttemptLimiter, reserveAll, type Reservation } from '../../security/attempt-limiter.js';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../../security/passwords.js';
import { newResetToken, sameHash, sha256 } from '../../security/secrets.js';
import type { PasswordResetDoc, UserDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { SessionService } from './sessions.js';
import type { TokenService } from './tokens.js';
import type { TotpFactor } from './totp-factor.js';
import { hidden, type Access } from './access.js';
import type { OidcSettings } from './oidc-settings.js';

const resetValidSeconds = 24 * 3600;

/** Said with the refusals of the limits kept per account, which POST /users/{id}/unlock lifts. */
export const unlockHint = 'A global administrator can unlock the account on the Users page.';

const wrongCodeDetail = 'body.totpCode: the code is wrong or expired: send the code your authenticator app shows now (each works once), or an unused recovery code.';

/** One sign-in attempt as the throttles and the failure log key it. */
interface Attempt {
  account: string;
  pairKey: string;
  clientAddress: string;
  username: string;
  userId?: string;
}

/** Sign-in, sign-out, password change and reset. */
export class AuthService {
  /**
   * Sign-in throttling, all over fifteen minutes: 5 failures per account and client address
   * together, 20 per client address, and a slow ceiling of 100 per account that only a distributed
   * attack reaches, so a flood from one address never locks the owner out from another.
   */
  private readonly perAccountAddress = new AttemptLimiter(5, 15 * 60, Date.now, unlockHint);
  private readonly perAddress = new AttemptLimiter(20, 15 * 60);
  private readonly perAccount = new AttemptLimiter(100, 15 * 60, Date.now, unlockHint);
  /** Wrong current passwords in a password change: five per account (a signed-in caller only). */
  private readonly perChange = new AttemptLimiter(5, 15 * 60, Date.now, unlockHint);

  constructor(
    private readonly deps: ServiceDeps,
    private readonly sessions: SessionService,
    private readonly tokens: TokenService,
    private readonly access: Access,
    private readonly loginFailures: LoginFailureLog,
    private readonly totp: TotpFactor,
    private readonly passwordPolicy: Pick<OidcSettings, 'allowsPassword'>,
  ) {}

  /**
   * A wrong password and a wrong second factor are refused with the same code and counted by the same
   * throttle; a right password without the second factor an account needs is `totp_required`.
   */
  async login(input: { username: string; password: string; totpCode?: string }, clientAddress: string, audit: AuditScope) {
    const key = input.username.toLowerCase();
    audit.detail({ username: input.username });
    const user = await this.deps.repos.users.findOne(key.includes('@') ? { emailKey: key } : { usernameKey: key });
    // Keyed by the account (its username or email alike), or by the name as typed when none matches.
    const account = user?._id ?? key;
    const attempt: Attempt = { account, pairKey: `${account}\n${clientAddress}`, clientAddress, username: input.username, userId: user?._id };
    const slot = await this.reserve(attempt, audit);
    const ok = await verifyPassword(user?.passwordHash ?? (await decoyPasswordHash()), input.password);
    if (!user || !ok) return this.refuse(attempt, audit, user ? 'bad_password' : 'unknown_user');
    audit.actorUserId = user._id;
    if (user.totpSeal !== undefined) {
      if (input.totpCode === undefined) {
        // The password was right: asking for the second factor is no failure to count.
        slot.release();
        audit.authFailure = 'totp_required';
        throw new DomainError('totp_required', 'Send totpCode: the code your authenticator app shows, or a recovery code.');
      }
      const factor = await this.totp.redeem(user._id, input.totpCode);
      if (!factor) return this.refuse(attempt, audit, 'bad_totp_code');
      audit.detail({ secondFactor: factor });
    }
    slot.release();
    this.perAccountAddress.reset(attempt.pairKey);
    audit.target(user._id);
    // Checked only once the password is right, so the refusal tells a stranger nothing about the account.
    if (!(await this.passwordPolicy.allowsPassword(user))) {
      throw forbidden('Password sign-in is turned off: sign in with single sign-on. Only global administrators may still use a password.');
    }
    const { sessionId } = await this.sessions.create(user._id);
    return { user, sessionId };
  }

  /**
   * A password sign-in outside the HTTP API (SFTP): the throttles of `login`, no session. Refused
   * (undefined) for an account a password alone must not open: TOTP on, single sign-on, or password
   * sign-in turned off. Throws `too_many_attempts` past the limits; the caller counts its refusals.
   */
  async passwordOnly(username: string, password: string, clientAddress: string): Promise<UserDoc | undefined> {
    const key = username.toLowerCase();
    const user = await this.deps.repos.users.findOne({ usernameKey: key });
    const account = user?._id ?? key;
    const slot = reserveAll([[this.perAddress, clientAddress], [this.perAccountAddress, `${account}\n${clientAddress}`], [this.perAccount, account]]);
    const ok = await verifyPassword(user?.passwordHash ?? (await decoyPasswordHash()), password);
    if (!user || !ok) return undefined;
    slot.release();
    this.perAccountAddress.reset(`${account}\n${clientAddress}`);
    if (user.totpSeal !== undefined || user.identity !== undefined || !(await this.passwordPolicy.allowsPassword(user))) return undefined;
    return user;
  }

  /**
   * Takes the attempt's slot in every throttle before the password is hashed, so a burst of
   * concurrent guesses gets no more checks than the allowance; a failure keeps its slot.
   */
  private async reserve(attempt: Attempt, audit: AuditScope): Promise<Reservation> {
    try {
      return reserveAll([[this.perAddress, attempt.clientAddress], [this.perAccountAddress, attempt.pairKey], [this.perAccount, attempt.account]]);
    } catch (e) {
      audit.authFailure = 'throttled';
      await this.loginFailures.failed({ userId: attempt.userId, username: attempt.username, clientAddress: attempt.clientAddress, error: 'too_many_attempts' });
      throw e;
    }
  }

  private async refuse(attempt: Attempt, audit: AuditScope, reason: 'bad_password' | 'unknown_user' | 'bad_totp_code'): Promise<never> {
    if (attempt.userId) audit.actorUserId = attempt.userId;
    audit.authFailure = reason;
    await this.loginFailures.failed({ userId: attempt.userId, username: attempt.username, clientAddress: attempt.clientAddress, error: 'invalid_credentials' });
    // The code is read only after the right password, which `totp_required` already tells apart: naming it reveals nothing more.
    throw new DomainError('invalid_credentials', reason === 'bad_totp_code' ? wrongCodeDetail : 'The username or password is wrong.');
  }

  /**
   * Forgets the account's failed sign-ins and password changes, from every address. The limit per
   * address stays: it guards against one address guessing many accounts, not this one.
   */
  clearLockouts(user: UserDoc): void {
    this.perAccount.reset(user._id);
    this.perAccountAddress.resetWhere((key) => key.startsWith(`${user._id}\n`));
    this.perChange.reset(user.usernameKey);
  }

  async logout(caller: Caller, audit: AuditScope): Promise<void> {
    audit.target(caller.user._id);
    if (caller.sessionHash) await this.sessions.end(caller.sessionHash, caller.user._id);
    // Signing out with a token is how a script gives its credential back.
    if (caller.tokenId) {
      await this.tokens.end(caller.user._id, caller.tokenId);
      audit.detail({ tokenId: caller.tokenId });
    }
  }

  async changePassword(caller: Caller, input: { currentPassword: string; newPassword: string; revokeTokens?: boolean }, audit: AuditScope) {
    audit.target(caller.user._id);
    this.access.requireUnscoped(caller);
    const user = await this.deps.repos.users.findById(caller.user._id);
    if (!user) throw hidden('user');
    const slot = this.perChange.reserve(user.usernameKey);
    if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
      throw invalidRequest('body.currentPassword: does not match the current password.');
    }
    slot.release();
    if (input.currentPassword === input.newPassword) throw invalidRequest('body.newPassword: must differ from the current password.');
    await this.deps.repos.users.update(
      { _id: caller.user._id },
      { passwordHash: await hashPassword(input.newPassword), passwordChangeRequired: false, updatedAt: nowIso(this.deps) },
    );
    await this.sessions.endAllFor(caller.user._id, caller.sessionHash);
    // A password changed because it leaked: the tokens made with it may have leaked too.
    if (input.revokeTokens) {
      await this.tokens.endAllFor(caller.user._id);
      audit.detail({ tokensRevoked: true });
    }
  }

  /** Issues a one-time reset secret for a user (global administrators); only its hash is kept. */
  async issueReset(caller: Caller, userId: string, audit: AuditScope) {
    this.access.requireGlobalAdmin(caller);
    audit.target(userId);
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    const token = newResetToken();
    const now = this.deps.clock.now();
    const doc: PasswordResetDoc = {
      _id: this.deps.ids.next(),
      userId,
      hash: sha256(token),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + resetValidSeconds * 1000).toISOString(),
      uses: 0,
    };
    await this.deps.repos.passwordResets.insert(doc);
    audit.detail({ resetId: doc._id, expiresAt: doc.expiresAt });
    return { token, expiresAt: doc.expiresAt };
  }

  /**
   * Redeems a reset secret once: sets the password, clears the change requirement, ends every
   * session and every API token (a reset means the account may be in other hands).
   */
  async redeemReset(input: { token: string; newPassword: string }, clientAddress: string, audit: AuditScope): Promise<UserDoc> {
    const slot = this.perAddress.reserve(clientAddress);
    const hash = sha256(input.token);
    const doc = await this.deps.repos.passwordResets.findOne({ hash });
    const now = nowIso(this.deps);
    if (!doc || !sameHash(doc.hash, hash) || doc.usedAt || now >= doc.expiresAt) throw new DomainError('invalid_token');
    slot.release();
    // Claim first, so two concurrent redemptions cannot both succeed: over the reset's version, which
    // FerretDB honours where it checks a plain conditional write's filter apart from the write.
    const resets = this.deps.repos.passwordResets;
    const claimed = doc.uses === 0
      ? await resets.updateVersions([{ id: doc._id, field: 'uses', value: 0 }], { usedAt: now, uses: 1 })
      : await resets.update({ _id: doc._id, usedAt: { $exists: false } }, { usedAt: now });
    if (claimed === 0) throw new DomainError('invalid_token');
    audit.actorUserId = doc.userId;
    audit.target(doc.userId);
    await this.deps.repos.users.update(
      { _id: doc.userId },
      { passwordHash: await hashPassword(input.newPassword), passwordChangeRequired: false, updatedAt: now },
    );
    await this.sessions.endAllFor(doc.userId);
    await this.tokens.endAllFor(doc.userId);
    const user = await this.deps.repos.users.findById(doc.userId);
    if (!user) throw new DomainError('invalid_token');
    return user;
  }
}
