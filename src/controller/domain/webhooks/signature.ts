import { createHmac } from 'node:crypto';

/**
 * `Cairn-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. The time is inside what
 * is signed, so a receiver can refuse an old delivery replayed; the body is signed as sent, byte for byte.
 */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
