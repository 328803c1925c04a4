import { withDetails } from '../../../shared/failure-text.js';

/** Network error codes by what they mean for someone who has to fix them. */
const lookupCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const routeCodes = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN']);
const certificateCodes = new Set(['CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

export const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

export const isTimeout = (error: unknown) => (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';

/**
 * What a failed request to `url` means, in words that name the host: `could not look up
 * fill-data.papermc.io` (no DNS answer: offline, or no resolver), `could not reach 127.0.0.1:1:
 * ECONNREFUSED`, `… did not answer within 10 s`, a route or certificate problem. The code stays in
 * brackets for searching; `timeoutMs` is the deadline the caller really gave the request.
 */
export function fetchFailureWords(url: string, error: unknown, timeoutMs: number): string {
  const host = hostOf(url);
  if (isTimeout(error)) return `${host} did not answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  if (code && lookupCodes.has(code)) return `could not look up ${host} (${code}: no DNS answer for it)`;
  if (code && routeCodes.has(code)) return `could not reach ${host}: no network route to it (${code})`;
  if (code && certificateCodes.has(code)) return `could not reach ${host}: its TLS certificate was not accepted (${code})`;
  return `could not reach ${host}: ${code ?? cause?.message ?? (error as Error).message}`;
}

export type DownloadFailureKind = 'unreachable' | 'status' | 'checksum' | 'pinned' | 'other';

/**
 * A server's install that failed because the Controller could not get its software, as the
 * condition says it: what failed and what the Controller needs (it downloads software itself,
 * Nodes never do) in words, and `message` (URLs, hashes) as details.
 */
export function softwareDownloadFailure(url: string, kind: DownloadFailureKind, message: string): string {
  const host = hostOf(url);
  switch (kind) {
    case 'unreachable':
      return withDetails(`${message.charAt(0).toUpperCase()}${message.slice(1)}. The Controller downloads server software itself: it needs outbound HTTPS to ${host}, or a mirror named with --software-source.`, url);
    case 'status':
      return withDetails(`${host} refused the download (${message.split(' from ')[0]}). Retry the install, or sync versions: the vendor may no longer offer this build.`, message);
    case 'checksum':
      return withDetails(`The download from ${host} did not match the checksum its listing gives; nothing unverified is kept or run. Retry the install; if it goes on, check the mirror named with --software-source.`, message);
    case 'pinned':
      return withDetails(`The download from ${host} differs from the one the Controller took at its first download (the vendor publishes no checksum to check it against); nothing unverified is kept or run. Choose another build, or ask the vendor why it changed.`, message);
    default:
      return withDetails(`The download from ${host} failed. Retry the install.`, message);
  }
}
