import { isIP } from 'node:net';

/** True when `host` only accepts connections from this machine (plaintext is then acceptable). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}
