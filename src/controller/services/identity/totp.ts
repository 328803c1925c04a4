import { openSealed } from '../../security/sealed-secret.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, forbidden, invalidRequest } from '../../core/errors.js';
import { AttemptLimiter } from '../../security/attempt-limiter.js';
import { verifyPassword } from '../../security/passwords.js';
import { sha256 } from '../../security/secrets.js';
import type { UserDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { hidden, type Access } from './access.js';
import { unlockHint } from './auth.js';
import type { SessionService } from './sessions.js';
import { acceptedStep, newRecoveryCode, newTotpSeed, otpauthUri, recoveryCodeCount, recoveryCodeKey } from './totp-codes.js';
import { totpPurpose, type TotpFactor } from './totp-factor.js';

const totpFields = ['totpSeal', 'totpPendingSeal', 'totpLastStep', 'totpRecoveryHashes'] as const;
/** How recent a single sign-on must be to stand in for the password an SSO-made account lacks. */
const freshSignInSeconds = 10 * 60;

/**
 * The TOTP second factor of an account: enrolment (a pending seed, confirmed by a first code),
 * turning it off with a code, and an administrator's reset for a user who lost the device.
 */
export class TotpService {
  /**
   * Wrong codes when confirming or turning TOTP off: five per account in fifteen minutes, so a
   * stolen session cannot guess its way to switching the second factor off.
   */
  private readonly perAccount = new AttemptLimiter(5, 15 * 60, Date.now, unlockHint);

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly factor: TotpFactor,
    private readonly sessions: Pick<SessionService, 'endAllFor'>,
  ) {}

  /** A fresh seed, pending until confirmed; it replaces any pending one. */
  async enrol(caller: Caller, audit: AuditScope) {
    this.access.requireUnscoped(caller);
    const user = caller.user;
    audit.target(user._id);
    const seed = newTotpSeed();
    const matched = await this.deps.repos.users.update(
      { _id: user._id, totpSeal: { $exists: false } },
      { totpPendingSeal: this.deps.secrets.seal(seed, totpPurpose(user._id)), updatedAt: nowIso(this.deps) },
    );
    if (matched === 0) throw conflict('TOTP is already on for this account: turn it off first.');
    return { secret: seed, otpauthUri: otpauthUri(seed, user.username) };
  }

  /**
   * The first code turns TOTP on (and is used up); the answer holds the recovery codes, once. The
   * caller proves again who it is (see `reauthenticate`), counted with wrong codes.
   */
  async confirm(caller: Caller, input: { code: string; password?: string }, audit: AuditScope) {
    const { code } = input;
    this.access.requireUnscoped(caller);
    const userId = caller.user._id;
    audit.target(userId);
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    if (user.totpSeal !== undefined) throw conflict('TOTP is already on for this account.');
    if (user.totpPendingSeal === undefined) throw conflict('No TOTP enrolment is pending: start one with POST /me/totp.');
    this.perAccount.reserve(userId);
    await this.reauthenticate(caller, user, input.password);
    const seed = openSealed(this.deps.secrets, user.totpPendingSeal, totpPurpose(userId), 'Start again with POST /me/totp.');
    const step = acceptedStep(seed, code, this.deps.clock.now().getTime(), undefined);
    if (step === undefined) throw invalidRequest('body.code: enter the 6-digit code your authenticator app shows now.');
    const recoveryCodes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
    const matched = await this.deps.repos.users.update(
      { _id: userId, totpPendingSeal: user.totpPendingSeal, totpSeal: { $exists: false } },
      {
        totpSeal: user.totpPendingSeal,
        totpLastStep: step,
        totpRecoveryHashes: recoveryCodes.map((c) => sha256(recoveryCodeKey(c))),
        updatedAt: nowIso(this.deps),
      },
      ['totpPendingSeal'],
    );
    if (matched === 0) throw conflict('The enrolment changed meanwhile: start again with POST /me/totp.');
    this.perAccount.reset(userId);
    // A second factor guards nothing while sessions opened with the password alone go on (one of
    // them may be why the account is being secured); the confirming session stays.
    await this.sessions.endAllFor(userId, caller.sessionHash);
    audit.detail({ otherSessionsEnded: true });
    return { recoveryCodes };
  }

  /**
   * The current password, so a session left open cannot tie the account to someone else's phone.
   * An account made by single sign-on has none: it shows a sign-in with the provider in this
   * session within the last 10 minutes instead.
   */
  private async reauthenticate(caller: Caller, user: UserDoc, password: string | undefined): Promise<void> {
    if (user.passwordHash === '') {
      const session = caller.sessionHash === undefined ? null : await this.deps.repos.sessions.findById(caller.sessionHash);
      const recent = session !== null && this.deps.clock.now().getTime() - Date.parse(session.createdAt) <= freshSignInSeconds * 1000;
      if (!recent) throw forbidden('Sign in again with single sign-on, then turn TOTP on within 10 minutes, in that session.');
      return;
    }
    if (password === undefined) throw invalidRequest('body.password: your current password is needed to turn TOTP on.');
    if (!(await verifyPassword(user.passwordHash, password))) throw invalidRequest('body.password: does not match your current password.');
  }

  /** Turning it off takes a current code or a recovery code, so a session left open is not enough. */
  async disable(caller: Caller, code: string, audit: AuditScope): Promise<void> {
    this.access.requireUnscoped(caller);
    const userId = caller.user._id;
    audit.target(userId);
    const user = await this.deps.repos.users.findById(userId);
    if (user?.totpSeal === undefined) throw conflict('TOTP is not on for this account.');
    this.perAccount.reserve(userId);
    if ((await this.factor.redeem(userId, code)) === undefined) {
      throw invalidRequest('body.code: enter the code your authenticator app shows now, or an unused recovery code.');
    }
    this.perAccount.reset(userId);
    await this.deps.repos.users.update({ _id: userId }, { updatedAt: nowIso(this.deps) }, [...totpFields]);
  }

  /** Forgets the account's wrong codes: an administrator unlocked it. */
  clearLockouts(userId: string): void {
    this.perAccount.reset(userId);
  }

  /** A global administrator turns another user's TOTP off (a lost device); the user may enrol again. */
  async reset(caller: Caller, userId: string, audit: AuditScope): Promise<void> {
    audit.target(userId);
    this.access.requireGlobalAdmin(caller);
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    audit.detail({ username: user.username, wasEnabled: user.totpSeal !== undefined });
    await this.deps.repos.users.update({ _id: userId }, { updatedAt: nowIso(this.deps) }, [...totpFields]);
  }
}
