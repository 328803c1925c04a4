import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform text over `alphabet` (at most 256 characters) from rejection-sampled random bytes (no modulo bias). */
export function randomText(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

export const randomBase62 = (length: number): string => randomText(base62, length);

/** High-entropy secrets (session ids, tokens, codes) are stored as SHA-256; a slow KDF adds nothing there. */
// The one-shot `hash` (no Hash object): every signed-in request hashes its cookie.
export const sha256 = (text: string) => hash('sha256', text, 'hex');

export function sameHash(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export const apiTokenPrefix = 'cairn_pat_';
export const newApiToken = () => apiTokenPrefix + randomBase62(40);
export const newSessionId = () => randomBytes(32).toString('base64url');
export const newResetToken = () => randomBase62(43);
/** Grouped so a person can read it off a file and type it: XXXX-XXXX-XXXX-XXXX-XXXX (~119 bits). */
export const newSetupCode = () => randomBase62(20).match(/.{4}/g)!.join('-');
/**
 * The network's modern-forwarding secret (~238 bits of base62, safe in TOML, YAML and properties
 * files). Kept as it is, not hashed: the proxy signs with it and every member checks with it.
 */
export const newForwardingSecret = () => randomBase62(40);
