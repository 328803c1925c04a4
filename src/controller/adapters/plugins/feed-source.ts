import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CatalogFeedError } from './feed.js';

/** A feed larger than this is refused rather than held in memory. */
export const maxFeedBytes = 64 * 1024 * 1024;
export const feedFetchTimeoutMs = 30_000;

export type FeedLocation = { kind: 'url'; url: string } | { kind: 'file'; path: string };

/** `--catalog-source`: an http(s) URL, or else a file path (a `file:` URL is read as a path too). */
export function feedLocation(source: string): FeedLocation {
  if (/^https?:\/\//i.test(source)) return { kind: 'url', url: source };
  if (source.startsWith('file://')) return { kind: 'file', path: new URL(source).pathname };
  return { kind: 'file', path: resolve(source) };
}

async function readBounded(path: string): Promise<string> {
  const handle = await open(path, 'r').catch((e: unknown) => {
    const err = e as NodeJS.ErrnoException;
    throw new CatalogFeedError(`cannot read ${path} (${err.code ?? err.message})`);
  });
  try {
    const { size } = await handle.stat();
    if (size > maxFeedBytes) throw new CatalogFeedError(`${path} is larger than ${maxFeedBytes} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function fetchBounded(url: string, signal: AbortSignal): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { accept: 'application/json' }, redirect: 'follow' });
  } catch (error) {
    throw new CatalogFeedError(`cannot fetch ${url} (${(error as Error).message})`);
  }
  if (!res.ok || !res.body) throw new CatalogFeedError(`${url} answered ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxFeedBytes) throw new CatalogFeedError(`${url} is larger than ${maxFeedBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // undici types the body as ReadableStream<any>; fetch's body yields bytes.
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxFeedBytes) throw new CatalogFeedError(`${url} is larger than ${maxFeedBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The feed's text, bounded in size and (for URLs) in time. */
export async function readFeedText(location: FeedLocation, timeoutMs = feedFetchTimeoutMs): Promise<string> {
  if (location.kind === 'file') return readBounded(location.path);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await fetchBounded(location.url, signal);
  } catch (error) {
    if (signal.aborted) throw new CatalogFeedError(`${location.url} did not answer within ${timeoutMs} ms`);
    throw error;
  }
}
