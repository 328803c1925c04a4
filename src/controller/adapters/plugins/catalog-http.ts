import { setTimeout as sleep } from 'node:timers/promises';
import { fetchFailureWords } from '../software/fetch-failure-words.js';
import { UpstreamError, upstreamUserAgent } from '../software/upstream-http.js';

/** Each request's deadline, headers to last byte. */
export const catalogRequestTimeoutMs = 20_000;
/** An answer larger than this is not a listing page. */
const maxAnswerBytes = 32 * 2 ** 20;
/** A 429 is waited out at most this many times per request, each wait at most `maxRetryWaitMs`. */
const maxRetries = 2;
const maxRetryWaitMs = 60_000;

/** Seconds of a Retry-After header (delta-seconds or an HTTP date); 1 s when absent or unreadable. */
function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header && /^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = header ? Date.parse(header) : NaN;
  return Number.isNaN(at) ? 1000 : Math.max(0, at - now);
}

/**
 * GETs JSON from Modrinth or Hangar: a deadline per request, a bounded answer, and a 429 waited out
 * as its Retry-After says (a wait longer than a minute gives up instead of stalling the sync).
 */
export async function fetchCatalogJson(url: string, timeoutMs = catalogRequestTimeoutMs): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      res = await fetch(url, { headers: { 'user-agent': upstreamUserAgent, accept: 'application/json' }, signal, redirect: 'follow' });
    } catch (error) {
      throw new UpstreamError(fetchFailureWords(url, error, timeoutMs));
    }
    if (res.status === 429) {
      await res.body?.cancel();
      const wait = retryAfterMs(res.headers.get('retry-after'));
      if (attempt >= maxRetries || wait > maxRetryWaitMs) throw new UpstreamError(`${url} is rate limited (HTTP 429, retry after ${Math.ceil(wait / 1000)} s)`);
      await sleep(wait);
      continue;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new UpstreamError(`HTTP ${res.status} from ${url}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > maxAnswerBytes) throw new UpstreamError(`${url} answered more than ${maxAnswerBytes} bytes`);
        chunks.push(Buffer.from(chunk));
      }
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      throw new UpstreamError(fetchFailureWords(url, error, timeoutMs));
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
      throw new UpstreamError(`${url} did not answer JSON`);
    }
  }
}
