import { Agent, type Dispatcher } from 'undici';
import { ApiError, CliError } from './errors.js';
import type { Page, Problem } from './api-types.js';

export interface Auth {
  token?: string;
  cookie?: string;
}

/** Node's words for a certificate it could not verify (`err.cause.code` of a failed fetch). */
const certificateCodes = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/;

/**
 * The public HTTP API under `<url>/api/v1`, with a Bearer token or a session cookie. Given a CA
 * (PEM), HTTPS trusts that CA instead of the system's, as for a Controller with its own CA.
 */
export class CliClient {
  readonly base: string;
  private readonly dispatcher?: Dispatcher;

  constructor(readonly url: string, private readonly auth: Auth, ca?: Buffer) {
    this.base = `${url.replace(/\/+$/, '')}/api/v1`;
    if (ca) this.dispatcher = new Agent({ connect: { ca } });
  }

  /** A request whose refusal becomes an ApiError; the caller reads the body. */
  async request(method: string, path: string, init: { headers?: Record<string, string>; body?: RequestInit['body']; signal?: AbortSignal; duplex?: 'half' } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.auth.token) headers.authorization = `Bearer ${this.auth.token}`;
    if (this.auth.cookie) headers.cookie = this.auth.cookie;
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { ...init, method, headers, ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}) });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const hint = certificateCodes.test(cause?.code ?? '') ? ' (its certificate is not trusted: give the CA that signed it with --ca FILE or CAIRN_CA)' : '';
      throw new CliError(`cannot reach the Controller at ${this.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}${hint}`);
    }
    if (!res.ok) throw await problemOf(res);
    return res;
  }

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
    const res = await this.request(method, path, body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { body: (text.length > 0 ? JSON.parse(text) : undefined) as T, headers: res.headers };
  }

  get = async <T>(path: string): Promise<T> => (await this.call<T>('GET', path)).body;
  post = async <T>(path: string, body?: unknown): Promise<T> => (await this.call<T>('POST', path, body)).body;
  patch = async <T>(path: string, body: unknown): Promise<T> => (await this.call<T>('PATCH', path, body)).body;
  delete = async <T>(path: string): Promise<T> => (await this.call<T>('DELETE', path)).body;

  /** Every item of a paged list, following nextCursor. */
  async all<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const params = new URLSearchParams({ limit: '200' });
      for (const [k, v] of Object.entries({ ...query, cursor })) if (v !== undefined) params.set(k, v);
      const page = await this.get<Page<T>>(`${path}?${params.toString()}`);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }
}

async function problemOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const problem = JSON.parse(text) as Partial<Problem>;
    return new ApiError(res.status, problem.code ?? String(res.status), problem.detail ?? problem.title ?? res.statusText);
  } catch {
    return new ApiError(res.status, String(res.status), text || res.statusText);
  }
}
