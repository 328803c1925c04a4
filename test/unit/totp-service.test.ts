import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditScope } from '../../src/controller/core/audit-scope.js';
import type { Caller } from '../../src/controller/core/caller.js';
import { isDomainError } from '../../src/controller/core/errors.js';
import { SecretBox } from '../../src/controller/security/secret-box.js';
import { sha256 } from '../../src/controller/security/secrets.js';
import { Access } from '../../src/controller/services/identity/access.js';
import { totpCodeAt, totpStep } from '../../src/controller/services/identity/totp-codes.js';
import { TotpFactor } from '../../src/controller/services/identity/totp-factor.js';
import { TotpService } from '../../src/controller/services/identity/totp.js';
import { newUserDoc } from '../../src/controller/services/identity/users.js';
import { openStore } from '../../src/controller/store/open-store.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import { uuidV7Ids } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';

/** A clock the test sets to the millisecond, so a code's step is known. */
class FixedClock {
  constructor(public ms: number) {}
  now(): Date {
    return new Date(this.ms);
  }
}

const scope = () => new AuditScope('user.totp_test', 'user');
const password = 'erin-password-1';

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (isDomainError(e)) return `${e.code}: ${e.detail ?? ''}`;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('TOTP enrolment and redemption (service, with a clock the test sets)', () => {
  let dir: string;
  let repos: Repositories;
  let clock: FixedClock;
  let totp: TotpService;
  let factor: TotpFactor;
  let caller: Caller;
  /** The sessions ended: the user's, but the one given. */
  let ended: [string, string | undefined][];
  const stepMs = 30_000;

  beforeEach(async () => {
    ended = [];
    dir = await mkdtemp(join(tmpdir(), 'cairn-totp-'));
    clock = new FixedClock(1_900_000_000_000 - (1_900_000_000_000 % stepMs) + 10_000);
    repos = await openStore({ dataDir: dir, clock });
    const deps = { repos, clock, ids: uuidV7Ids, logger: silentLogger, dataDir: dir, secrets: SecretBox.ofKey(randomBytes(32)) };
    factor = new TotpFactor(deps);
    totp = new TotpService(deps, new Access(repos), factor, { endAllFor: async (userId, except) => void ended.push([userId, except]) });
    const user = await newUserDoc(deps, { username: 'erin', email: 'erin@example.com', displayName: 'Erin', password }, false);
    await repos.users.insert(user);
    caller = { kind: 'USER', user };
  });
  afterEach(async () => {
    await repos.close();
    await rm(dir, { recursive: true, force: true });
  });

  const enable = async () => {
    const { secret } = await totp.enrol(caller, scope());
    const { recoveryCodes } = await totp.confirm(caller, { code: totpCodeAt(secret, totpStep(clock.ms)), password }, scope());
    return { secret, recoveryCodes };
  };

  it('keeps the seed sealed: neither the stored user nor the store files hold it in clear', async () => {
    const { secret } = await totp.enrol(caller, scope());
    const pending = await repos.users.findById(caller.user._id);
    expect(pending?.totpPendingSeal).to.be.a('string').and.not.include(secret);
    expect(JSON.stringify(pending)).not.to.include(secret);
    const { recoveryCodes } = await totp.confirm(caller, { code: totpCodeAt(secret, totpStep(clock.ms)), password }, scope());
    const enabled = await repos.users.findById(caller.user._id);
    expect(enabled?.totpSeal).to.equal(pending?.totpPendingSeal);
    expect(enabled).not.to.have.property('totpPendingSeal');
    expect(enabled?.totpRecoveryHashes).to.have.length(10);
    const stored = JSON.stringify(enabled);
    for (const secretText of [secret, ...recoveryCodes, ...recoveryCodes.map((c) => c.replaceAll('-', ''))]) expect(stored).not.to.include(secretText);
    await repos.close();
    for (const file of await readdir(dir, { recursive: true })) {
      const text = await readFile(join(dir, file)).catch(() => Buffer.alloc(0));
      expect(text.includes(secret), file).to.equal(false);
    }
    repos = await openStore({ dataDir: dir, clock });
  });

  it('turning TOTP on ends the user\'s other sessions, keeping the confirming one', async () => {
    caller = { ...caller, sessionHash: 'the-confirming-session' };
    await enable();
    expect(ended).to.deep.equal([[caller.user._id, 'the-confirming-session']]);
  });

  it('turning on needs the current password: missing or wrong is 400 naming body.password, counted with wrong codes', async () => {
    const { secret } = await totp.enrol(caller, scope());
    const code = totpCodeAt(secret, totpStep(clock.ms));
    expect(await refusal(totp.confirm(caller, { code }, scope()))).to.match(/^invalid_request: body\.password: your current password is needed/);
    expect(await refusal(totp.confirm(caller, { code, password: 'not-the-password' }, scope()))).to.match(/^invalid_request: body\.password: does not match/);
    expect((await repos.users.findById(caller.user._id))?.totpSeal).to.equal(undefined);
    for (let i = 0; i < 3; i++) await refusal(totp.confirm(caller, { code, password: `wrong-${i}` }, scope()));
    expect(await refusal(totp.confirm(caller, { code, password }, scope()))).to.match(/^too_many_attempts/);
  });

  it('an account made by single sign-on (no password) turns on within 10 minutes of signing in, in that session', async () => {
    await repos.users.update({ _id: caller.user._id }, { passwordHash: '' });
    const signedIn = clock.ms;
    await repos.sessions.insert({ _id: 'sso-session', userId: caller.user._id, createdAt: new Date(signedIn).toISOString(), lastSeenAt: new Date(signedIn).toISOString(), expiresAt: new Date(signedIn + 86_400_000).toISOString() });
    const sso: Caller = { ...caller, sessionHash: 'sso-session' };
    clock.ms += 11 * 60_000;
    const { secret } = await totp.enrol(sso, scope());
    expect(await refusal(totp.confirm(sso, { code: totpCodeAt(secret, totpStep(clock.ms)) }, scope()))).to.match(/^forbidden: Sign in again with single sign-on/);
    expect(await refusal(totp.confirm({ ...caller, tokenId: 'a-token' }, { code: totpCodeAt(secret, totpStep(clock.ms)) }, scope()))).to.match(/^forbidden/);
    clock.ms = signedIn + 9 * 60_000;
    const { recoveryCodes } = await totp.confirm(sso, { code: totpCodeAt(secret, totpStep(clock.ms)) }, scope());
    expect(recoveryCodes).to.have.length(10);
  });

  it('a new enrolment replaces a pending one; the old seed\'s code no longer confirms', async () => {
    const first = await totp.enrol(caller, scope());
    const second = await totp.enrol(caller, scope());
    expect(second.secret).not.to.equal(first.secret);
    expect(await refusal(totp.confirm(caller, { code: totpCodeAt(first.secret, totpStep(clock.ms)), password }, scope()))).to.match(/^invalid_request: body\.code/);
    await totp.confirm(caller, { code: totpCodeAt(second.secret, totpStep(clock.ms)), password }, scope());
    expect(await refusal(totp.enrol(caller, scope()))).to.match(/^conflict/);
  });

  it('refuses the confirming code again, then accepts the next step\'s code once (no replay)', async () => {
    const { secret } = await enable();
    const step = totpStep(clock.ms);
    expect(await factor.redeem(caller.user._id, totpCodeAt(secret, step))).to.equal(undefined);
    clock.ms += stepMs;
    const next = totpCodeAt(secret, step + 1);
    expect(await factor.redeem(caller.user._id, next)).to.equal('totp');
    expect(await factor.redeem(caller.user._id, next)).to.equal(undefined);
    // Nor an older step still inside the window.
    expect(await factor.redeem(caller.user._id, totpCodeAt(secret, step))).to.equal(undefined);
    // The following step's code (early, within +1) works, and then the current one no longer does.
    expect(await factor.redeem(caller.user._id, totpCodeAt(secret, step + 2))).to.equal('totp');
    expect(await factor.redeem(caller.user._id, totpCodeAt(secret, step + 1))).to.equal(undefined);
  });

  it('accepts each recovery code once, with or without its hyphens', async () => {
    const { recoveryCodes } = await enable();
    expect(await factor.redeem(caller.user._id, recoveryCodes[3])).to.equal('recovery_code');
    expect(await factor.redeem(caller.user._id, recoveryCodes[3])).to.equal(undefined);
    expect(await factor.redeem(caller.user._id, recoveryCodes[4].replaceAll('-', ''))).to.equal('recovery_code');
    expect(await factor.redeem(caller.user._id, recoveryCodes[4])).to.equal(undefined);
    expect((await repos.users.findById(caller.user._id))?.totpRecoveryHashes).to.have.length(8);
    expect(await factor.redeem(caller.user._id, 'AAAA-BBBB-CCCC-DDDD')).to.equal(undefined);
  });

  it('two recovery codes used at once both count, and both are gone', async () => {
    const { recoveryCodes } = await enable();
    const results = await Promise.all([factor.redeem(caller.user._id, recoveryCodes[0]), factor.redeem(caller.user._id, recoveryCodes[1])]);
    expect(results).to.deep.equal(['recovery_code', 'recovery_code']);
    expect((await repos.users.findById(caller.user._id))?.totpRecoveryHashes).to.have.length(8);
  });

  it('turning off needs a valid code; five wrong ones are throttled; an administrator\'s reset clears it all', async () => {
    const { secret, recoveryCodes } = await enable();
    for (let i = 0; i < 5; i++) expect(await refusal(totp.disable(caller, '000000', scope()))).to.match(/^invalid_request: body\.code/);
    expect(await refusal(totp.disable(caller, recoveryCodes[0], scope()))).to.match(/^too_many_attempts/);
    await totp.reset({ kind: 'USER', user: { ...caller.user, globalAdmin: true } }, caller.user._id, scope());
    const user = await repos.users.findById(caller.user._id);
    for (const field of ['totpSeal', 'totpPendingSeal', 'totpLastStep', 'totpRecoveryHashes']) expect(user).not.to.have.property(field);
    expect(await factor.redeem(caller.user._id, totpCodeAt(secret, totpStep(clock.ms) + 1))).to.equal(undefined);
    expect(await refusal(totp.reset(caller, caller.user._id, scope()))).to.match(/^forbidden/);
  });

  /** 40 attempts at once: how many were checked (400); every other one was refused with 429. */
  const checkedOf = async (attempt: (i: number) => Promise<unknown>) => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => refusal(attempt(i))));
    const checked = answers.filter((a) => a.startsWith('invalid_request')).length;
    expect(answers.filter((a) => a.startsWith('too_many_attempts')).length).to.equal(40 - checked);
    return checked;
  };

  it('a burst of 40 wrong confirming codes at once: at most five are checked, the rest 429', async () => {
    const { secret } = await totp.enrol(caller, scope());
    const now = totpCodeAt(secret, totpStep(clock.ms));
    expect(await checkedOf((i) => totp.confirm(caller, { code: String(100000 + i) === now ? '999999' : String(100000 + i), password }, scope()))).to.be.within(1, 5);
  });

  it('a burst of 40 wrong recovery codes turning TOTP off: at most five are checked, the rest 429', async () => {
    await enable();
    expect(await checkedOf((i) => totp.disable(caller, `AAAA-BBBB-CCCC-${1000 + i}`, scope()))).to.be.within(1, 5);
  });

  it('turns off with a current code', async () => {
    const { secret } = await enable();
    clock.ms += stepMs;
    await totp.disable(caller, totpCodeAt(secret, totpStep(clock.ms)), scope());
    expect(await repos.users.findById(caller.user._id)).not.to.have.property('totpSeal');
    expect(await refusal(totp.disable(caller, totpCodeAt(secret, totpStep(clock.ms)), scope()))).to.match(/^conflict/);
  });
  it('accepts new recovery codes in any case, with or without hyphens, and codes issued before in their mixed-case form', async () => {
    const { recoveryCodes } = await enable();
    expect(await factor.redeem(caller.user._id, recoveryCodes[0].toUpperCase())).to.equal('recovery_code');
    expect(await factor.redeem(caller.user._id, ` ${recoveryCodes[1].replaceAll('-', ' ')} `)).to.equal('recovery_code');
    // A code of the earlier base62 format, stored as its hash: case matters in it, as it did.
    const earlier = 'Ab3Z-x9Qk-LmN0-pR7t';
    const hashes = (await repos.users.findById(caller.user._id))!.totpRecoveryHashes!;
    await repos.users.update({ _id: caller.user._id }, { totpRecoveryHashes: [...hashes, sha256(earlier.replaceAll('-', ''))] });
    expect(await factor.redeem(caller.user._id, earlier.toLowerCase())).to.equal(undefined);
    expect(await factor.redeem(caller.user._id, earlier.replaceAll('-', ''))).to.equal('recovery_code');
    expect(await factor.redeem(caller.user._id, earlier)).to.equal(undefined);
  });
});
