import { deadlineSignal } from '../../../shared/deadline.js';
import { cairnHomepage, cairnVersion } from '../../../shared/version.js';
import { fetchFailureWords } from './fetch-failure-words.js';

/** Every request to an upstream says who asks, as PaperMC asks of its API's users. */
export const upstreamUserAgent = `cairn/${cairnVersion} (${cairnHomepage})`;
export const upstreamTimeoutMs = 10_000;
/** A listing larger than this is not one: a wrong or hostile URL cannot fill the Controller's memory. */
const maxListingBytes = 16 * 2 ** 20;

/** An upstream that could not be read, with the host and the cause (never a bare "fetch failed"). */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
}

/** GETs JSON from an upstream within the deadline, refusing answers over the size bound. */
export async function fetchUpstreamJson(url: string, signal?: AbortSignal): Promise<unknown> {
  const text = await fetchUpstreamText(url, 'application/json', signal);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamError(`${url} did not answer JSON`);
  }
}

/** GETs a text answer (Maven's XML metadata, a checksum file) within the deadline and the size bound. */
export async function fetchUpstreamText(url: string, accept: string, signal?: AbortSignal): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { 'user-agent': upstreamUserAgent, accept }, signal: deadlineSignal(upstreamTimeoutMs, signal), redirect: 'follow' });
  } catch (error) {
    throw new UpstreamError(fetchFailureWords(url, error, upstreamTimeoutMs));
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new UpstreamError(`HTTP ${res.status} from ${url}`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxListingBytes) throw new UpstreamError(`${url} answered ${declared} bytes, more than a listing can be`);
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxListingBytes) throw new UpstreamError(`${url} answered more than ${maxListingBytes} bytes`);
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(fetchFailureWords(url, error, upstreamTimeoutMs));
  }
}
