import { timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';
import { randomText } from '../../security/secrets.js';

/** RFC 6238 as every authenticator app does it by default: SHA-1, 6 digits, 30-second steps. */
const algorithm = 'SHA1';
const digits = 6;
export const totpPeriodSeconds = 30;
/** Steps either side of now a code may belong to: covers a phone clock a little off and a code typed at a step's end. */
const driftSteps = 1;
/** 160 bits, the HMAC-SHA-1 block RFC 4226 recommends. */
const seedBytes = 20;

export const recoveryCodeCount = 10;

export const newTotpSeed = (): string => new Secret({ size: seedBytes }).base32;

export const otpauthUri = (seed: string, username: string): string =>
  new TOTP({ issuer: 'Cairn', label: username, algorithm, digits, period: totpPeriodSeconds, secret: Secret.fromBase32(seed) }).toString();

export const totpStep = (atMs: number): number => Math.floor(atMs / 1000 / totpPeriodSeconds);

export const totpCodeAt = (seed: string, step: number): string =>
  HOTP.generate({ secret: Secret.fromBase32(seed), algorithm, digits, counter: step });

/** A code of the app rather than a recovery code. */
export const isTotpCode = (text: string): boolean => /^\d{6}$/.test(text.trim());

/**
 * The time step within ±1 of `atMs` whose code `code` is, when that step is later than
 * `afterStep` (the last one accepted, so a code works once); undefined otherwise. Every candidate
 * is compared in constant time, so the answer's timing tells nothing about which step matched.
 */
export function acceptedStep(seed: string, code: string, atMs: number, afterStep: number | undefined): number | undefined {
  const typed = Buffer.from(code.trim());
  const now = totpStep(atMs);
  let found: number | undefined;
  for (let step = now - driftSteps; step <= now + driftSteps; step++) {
    const expected = Buffer.from(totpCodeAt(seed, step));
    const same = typed.length === expected.length && timingSafeEqual(typed, expected);
    if (same && found === undefined && (afterStep === undefined || step > afterStep)) found = step;
  }
  return found;
}

/**
 * Lower-case letters and digits without the look-alikes 0/o and 1/l/i, so a code read off paper
 * is typed right (31 characters).
 */
export const recoveryAlphabet = '23456789abcdefghjkmnpqrstuvwxyz';

/** 20 characters (~99 bits) in groups of four: random enough that SHA-256 alone keeps them. */
export const newRecoveryCode = (): string => randomText(recoveryAlphabet, 20).match(/.{4}/g)!.join('-');

/** The code as it is hashed: without the hyphens and spaces a person may type or leave out. */
export const recoveryCodeKey = (text: string): string => text.replace(/[\s-]/g, '');

/**
 * The keys a typed recovery code may be stored under: as typed, for the mixed-case base62 codes
 * issued before, and lower-cased, for today's codes, whatever case the person typed them in.
 */
export const recoveryCodeKeys = (text: string): string[] => [...new Set([recoveryCodeKey(text), recoveryCodeKey(text).toLowerCase()])];
