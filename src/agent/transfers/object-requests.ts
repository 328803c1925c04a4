import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { AgentError } from '../errors.js';

/** A socket silent this long (connecting, sending or waiting for an answer) is given up. */
const idleMs = 30_000;
/** Tries of one request before its failure is the operation's: the first and two retries. */
const attempts = 3;
const backoffMs = (attempt: number) => 500 * 4 ** (attempt - 1);
/** How much of a refusal's body is read for its error code. */
const refusalBytes = 4096;

/**
 * The object store refused a presigned request or could not be reached. The message names the
 * host and the store's answer, never the URL: its query is a signature that grants access.
 */
export function storeError(url: URL | string, what: string): AgentError {
  const host = typeof url === 'string' ? URL.parse(url)?.host ?? 'an unparsable address' : url.host;
  return new AgentError('OBJECT_STORE', `The object store at ${host} ${what}.`);
}

/** A refusal that retrying cannot change (a 4xx: expired, forbidden, missing). */
class Refusal extends Error {}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AgentError('INVALID_REQUEST', 'url: not a URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AgentError('INVALID_REQUEST', 'url: must be http or https.');
  return url;
}

/** `body` is the pieces of one request's body, sent in order without joining them; `signed` the headers the URL was signed with. */
function send(method: 'PUT' | 'GET', url: URL, body: readonly Buffer[] | undefined, signal: AbortSignal, signed: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers = body ? { ...signed, 'content-length': String(body.reduce((n, b) => n + b.length, 0)) } : undefined;
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers, signal, timeout: idleMs });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${idleMs / 1000} s`)));
    req.on('response', resolve);
    req.on('error', reject);
    for (const piece of body ?? []) req.write(piece);
    req.end();
  });
}

async function bodyStart(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) if (text.length < refusalBytes) text += String(chunk);
  return text.slice(0, refusalBytes);
}

/** `403 AccessDenied` from an S3 error document (`<Code>…</Code>`), or the status alone. */
async function answerOf(res: IncomingMessage): Promise<string> {
  const code = /<Code>([A-Za-z0-9.]{1,80})<\/Code>/.exec(await bodyStart(res))?.[1];
  return `answered ${res.statusCode ?? 0}${code ? ` ${code}` : ''}`;
}

/** Sends a request until it is answered 2xx; a 4xx ends it at once, a 5xx or a network failure is tried again. */
async function answered(method: 'PUT' | 'GET', rawUrl: string, body: readonly Buffer[] | undefined, signal: AbortSignal, signed?: Record<string, string>): Promise<IncomingMessage> {
  const url = parseUrl(rawUrl);
  for (let attempt = 1; ; attempt++) {
    let failure: string;
    try {
      const res = await send(method, url, body, signal, signed);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return res;
      failure = await answerOf(res);
      if (status < 500) throw new Refusal(failure);
    } catch (e) {
      signal.throwIfAborted();
      if (e instanceof Refusal) throw storeError(url, e.message);
      failure = `could not be reached (${(e as Error).message})`;
    }
    if (attempt === attempts) throw storeError(url, `${failure}, ${attempts} tries`);
    await delay(backoffMs(attempt), undefined, { signal });
  }
}

/** PUTs one part (or a whole object), given as its pieces, to a presigned URL with the headers it was signed with; answers the ETag the store gave it. */
export async function putObjectPart(url: string, body: readonly Buffer[], signal: AbortSignal, signed: Record<string, string> = {}): Promise<string> {
  const res = await answered('PUT', url, body, signal, signed);
  res.resume();
  return String(res.headers.etag ?? '');
}

/** GETs an object from a presigned URL; the answer's body streams (a failure mid-body fails the stream). */
export async function getObject(url: string, signal: AbortSignal): Promise<IncomingMessage> {
  return answered('GET', url, undefined, signal);
}
