import { openSealed } from '../../security/sealed-secret.js';
import { sameHash, sha256 } from '../../security/secrets.js';
import type { UserDoc } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';
import { acceptedStep, isTotpCode, recoveryCodeKeys } from './totp-codes.js';

/** Named in the sign-in's audit event, so a recovery code's use shows in the log. */
export type SecondFactor = 'totp' | 'recovery_code';

export const totpPurpose = (userId: string) => `totp:${userId}`;

/** Tries to use a recovery code once more when another one was used at the same moment. */
const recoveryAttempts = 3;

/**
 * Checks a second factor of a user with TOTP on and uses it up: an authentication code is
 * accepted for a time step later than the last accepted one, a recovery code is removed. Both
 * writes are conditional on what was read, so of two requests with the same code one wins.
 */
export class TotpFactor {
  constructor(private readonly deps: ServiceDeps) {}

  /** Which kind of factor `code` was, valid and unused (now used); undefined when it was not, or TOTP is off. */
  async redeem(userId: string, code: string): Promise<SecondFactor | undefined> {
    if (isTotpCode(code)) return (await this.redeemTotp(userId, code)) ? 'totp' : undefined;
    return (await this.redeemRecovery(userId, recoveryCodeKeys(code))) ? 'recovery_code' : undefined;
  }

  private async redeemTotp(userId: string, code: string): Promise<boolean> {
    const user = await this.deps.repos.users.findById(userId);
    if (user?.totpSeal === undefined) return false;
    const seed = openSealed(this.deps.secrets, user.totpSeal, totpPurpose(userId), 'Sign in with a recovery code, or have a global administrator reset your TOTP.');
    const step = acceptedStep(seed, code, this.deps.clock.now().getTime(), user.totpLastStep);
    if (step === undefined) return false;
    const matched = await this.deps.repos.users.update(
      { _id: userId, totpSeal: user.totpSeal, $or: [{ totpLastStep: { $exists: false } }, { totpLastStep: { $lt: step } }] },
      { totpLastStep: step },
    );
    return matched === 1;
  }

  private async redeemRecovery(userId: string, keys: string[]): Promise<boolean> {
    if (keys[0] === '') return false;
    const typed = keys.map(sha256);
    for (let attempt = 0; attempt < recoveryAttempts; attempt++) {
      const user = await this.deps.repos.users.findById(userId);
      const hashes = user?.totpSeal === undefined ? [] : user.totpRecoveryHashes ?? [];
      // Compared with every stored hash, without stopping at a match.
      const index = hashes.reduce((found, stored, i) => (typed.filter((hash) => sameHash(stored, hash)).length > 0 && found < 0 ? i : found), -1);
      if (index < 0) return false;
      if (await this.useUp(user!, hashes, index)) return true;
    }
    return false;
  }

  /** Removes one recovery code, provided no other was removed since `hashes` was read (all still there). */
  private async useUp(user: UserDoc, hashes: string[], index: number): Promise<boolean> {
    const unchanged = hashes.map((h) => ({ totpRecoveryHashes: h }));
    const matched = await this.deps.repos.users.update(
      { _id: user._id, totpSeal: user.totpSeal, $and: unchanged },
      { totpRecoveryHashes: hashes.filter((_, i) => i !== index) },
    );
    return matched === 1;
  }
}
