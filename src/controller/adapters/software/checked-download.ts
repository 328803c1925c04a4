import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fetchFailureWords } from './fetch-failure-words.js';
import { upstreamUserAgent } from './upstream-http.js';

/** What a download must be: its exact size and every checksum its listing gives. */
export interface ExpectedFile {
  size: number;
  sha512?: string;
  sha1?: string;
}

/** A download that could not be fetched or is not the file listed; the message names the URL. */
export class DownloadRefused extends Error {
  override name = 'DownloadRefused';
}

/**
 * GETs `url` into `file` within `timeoutMs`, refusing more bytes than expected, then checks the
 * size and each listed checksum. Answers the sha256 (how the artifact store keeps it).
 */
export async function downloadChecked(url: string, file: string, expected: ExpectedFile, timeoutMs: number): Promise<{ sha256: string }> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const res = await fetch(url, { signal: deadline, redirect: 'follow', headers: { 'user-agent': upstreamUserAgent } }).catch((e: unknown) => {
    throw new DownloadRefused(fetchFailureWords(url, e, timeoutMs));
  });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new DownloadRefused(`HTTP ${res.status} from ${url}`);
  }
  const hashes = { sha256: createHash('sha256'), sha512: createHash('sha512'), sha1: createHash('sha1') };
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > expected.size) return done(new DownloadRefused(`${url} sent more than the ${expected.size} bytes the pack lists`));
      for (const h of Object.values(hashes)) h.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>), counter, createWriteStream(file, { mode: 0o600 }));
  } catch (e) {
    if (e instanceof DownloadRefused) throw e;
    throw new DownloadRefused(deadline.aborted ? `${url} did not finish within ${timeoutMs / 1000} s (${size} bytes came)` : fetchFailureWords(url, e, timeoutMs));
  }
  if (size !== expected.size) throw new DownloadRefused(`${url} sent ${size} bytes; the pack lists ${expected.size}`);
  const got = { sha512: hashes.sha512.digest('hex'), sha1: hashes.sha1.digest('hex') };
  if (expected.sha512 && got.sha512 !== expected.sha512) throw new DownloadRefused(`${url} has sha512 ${got.sha512.slice(0, 16)}…, not ${expected.sha512.slice(0, 16)}… as the pack lists`);
  if (expected.sha1 && got.sha1 !== expected.sha1) throw new DownloadRefused(`${url} has sha1 ${got.sha1}, not ${expected.sha1} as the pack lists`);
  return { sha256: hashes.sha256.digest('hex') };
}
