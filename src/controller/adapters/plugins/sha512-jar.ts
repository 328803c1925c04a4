import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { ArtifactUnavailableError, type ArtifactStore } from '../software/artifact-store.js';
import { fetchFailureWords } from '../software/fetch-failure-words.js';
import { upstreamUserAgent } from '../software/upstream-http.js';

export interface Sha512Download {
  url: string;
  sha512: string;
  size: number;
}

/** A jar's whole download, headers to last byte. */
export const sha512JarTimeoutMs = 120_000;

/**
 * A catalog jar its source lists by sha512 only (Modrinth): downloaded once, refused unless its
 * size and sha512 match the listing, then kept in the ArtifactStore under the sha256 computed from
 * the same bytes, which is what installations, Nodes and the Agent's cache check from then on.
 * Answers that sha256.
 */
export async function adoptBySha512(store: ArtifactStore, download: Sha512Download, timeoutMs = sha512JarTimeoutMs): Promise<string> {
  const res = await fetch(download.url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow', headers: { 'user-agent': upstreamUserAgent } }).catch((e: unknown) => {
    throw new ArtifactUnavailableError(fetchFailureWords(download.url, e, timeoutMs), 'unreachable');
  });
  if (!res.ok || !res.body) throw new ArtifactUnavailableError(`HTTP ${res.status} from ${download.url}`, 'status');
  const sha512 = createHash('sha512');
  const sha256 = createHash('sha256');
  let size = 0;
  // Never store more than the listing promised: a wrong or hostile URL cannot fill the disk.
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > download.size) return done(new ArtifactUnavailableError(`${download.url} is larger than the ${download.size} bytes its listing says`, 'checksum'));
      sha512.update(chunk);
      sha256.update(chunk);
      done(null, chunk);
    },
  });
  const temp = await store.tempPath();
  try {
    await pipeline(Readable.fromWeb(res.body as ReadableStream<Uint8Array>), counter, createWriteStream(temp, { mode: 0o600 })).catch((e: unknown) => {
      throw e instanceof ArtifactUnavailableError ? e : new ArtifactUnavailableError(fetchFailureWords(download.url, e, timeoutMs), 'unreachable');
    });
    const got = sha512.digest('hex');
    if (size !== download.size || got !== download.sha512) {
      throw new ArtifactUnavailableError(`${download.url} gave ${size} bytes with sha512 ${got}; its listing says ${download.size} bytes with ${download.sha512}`, 'checksum');
    }
    const sum = sha256.digest('hex');
    await store.adopt(temp, sum);
    return sum;
  } finally {
    await rm(temp, { force: true });
  }
}
