import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import { acceptedStep, isTotpCode, newRecoveryCode, newTotpSeed, otpauthUri, recoveryCodeKey, totpCodeAt, totpStep } from '../../src/controller/services/identity/totp-codes.js';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII "12345678901234567890".
const rfcSeed = Secret.fromLatin1('12345678901234567890').base32;
const stepMs = 30_000;

describe('TOTP codes (RFC 6238, SHA-1, 6 digits, 30 s, ±1 step)', () => {
  it('computes the RFC 6238 test vectors (their last six digits)', () => {
    const vectors: [number, string][] = [[59, '287082'], [1111111109, '081804'], [1111111111, '050471'], [1234567890, '005924'], [2000000000, '279037']];
    for (const [seconds, code] of vectors) expect(totpCodeAt(rfcSeed, totpStep(seconds * 1000)), `T=${seconds}`).to.equal(code);
  });

  describe('at the window edges', () => {
    const seed = newTotpSeed();
    // The middle of a step, so "now" is unambiguous.
    const now = 1_800_000_000_000 + 15_000;
    const step = totpStep(now);

    it('accepts the current step, the previous one and the next one', () => {
      expect(acceptedStep(seed, totpCodeAt(seed, step), now, undefined)).to.equal(step);
      expect(acceptedStep(seed, totpCodeAt(seed, step - 1), now, undefined)).to.equal(step - 1);
      expect(acceptedStep(seed, totpCodeAt(seed, step + 1), now, undefined)).to.equal(step + 1);
    });

    it('refuses codes two steps off either way', () => {
      expect(acceptedStep(seed, totpCodeAt(seed, step - 2), now, undefined)).to.equal(undefined);
      expect(acceptedStep(seed, totpCodeAt(seed, step + 2), now, undefined)).to.equal(undefined);
    });

    it('moves with the clock: the first and last millisecond of a step', () => {
      const start = step * stepMs;
      const end = start + stepMs - 1;
      expect(acceptedStep(seed, totpCodeAt(seed, step - 1), start, undefined)).to.equal(step - 1);
      expect(acceptedStep(seed, totpCodeAt(seed, step - 1), end + 1, undefined)).to.equal(undefined);
      expect(acceptedStep(seed, totpCodeAt(seed, step + 1), end, undefined)).to.equal(step + 1);
      expect(acceptedStep(seed, totpCodeAt(seed, step + 2), end, undefined)).to.equal(undefined);
    });

    it('refuses a step at or before the last accepted one (a code works once)', () => {
      const code = totpCodeAt(seed, step);
      expect(acceptedStep(seed, code, now, step - 1)).to.equal(step);
      expect(acceptedStep(seed, code, now, step)).to.equal(undefined);
      expect(acceptedStep(seed, totpCodeAt(seed, step - 1), now, step)).to.equal(undefined);
      expect(acceptedStep(seed, totpCodeAt(seed, step + 1), now, step)).to.equal(step + 1);
    });

    it('refuses another seed\'s code and text that is no code', () => {
      expect(acceptedStep(newTotpSeed(), totpCodeAt(seed, step), now, undefined)).to.equal(undefined);
      for (const text of ['', '12345', '1234567', 'abcdef']) expect(acceptedStep(seed, text, now, undefined), text).to.equal(undefined);
    });
  });

  it('agrees with an authenticator app reading the otpauth URI (issuer Cairn, label the username)', () => {
    const seed = newTotpSeed();
    const uri = otpauthUri(seed, 'erin');
    expect(uri).to.match(/^otpauth:\/\/totp\/Cairn:erin\?/);
    expect(uri).to.include('issuer=Cairn').and.include(`secret=${seed}`).and.include('algorithm=SHA1').and.include('digits=6').and.include('period=30');
    const now = Date.now();
    expect(new TOTP({ secret: Secret.fromBase32(seed) }).generate({ timestamp: now })).to.equal(totpCodeAt(seed, totpStep(now)));
  });

  it('makes distinct recovery codes that are not mistaken for app codes and survive retyping', () => {
    const codes = Array.from({ length: 50 }, newRecoveryCode);
    expect(new Set(codes).size).to.equal(50);
    for (const code of codes) {
      expect(code).to.match(/^[0-9a-z]{4}(-[0-9a-z]{4}){4}$/);
      expect(isTotpCode(code)).to.equal(false);
      expect(recoveryCodeKey(` ${code.replaceAll('-', ' ')} `)).to.equal(recoveryCodeKey(code));
    }
    expect(isTotpCode('012345')).to.equal(true);
  });
});
