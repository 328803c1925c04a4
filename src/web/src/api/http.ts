import { ApiProblem } from './problem';
import type { ProblemBody } from './types';

export const apiBase = '/api/v1';

export type QueryValue = string | number | boolean | undefined;
export type Query = Record<string, QueryValue>;

export interface RequestOptions {
  query?: object;
  /** A JSON body. */
  json?: unknown;
  /** A raw body, sent as application/octet-stream (file and jar uploads). */
  raw?: Blob;
  signal?: AbortSignal;
}

/** `/servers/x/files` + `{path: 'a b'}` → `/api/v1/servers/x/files?path=a%20b`, leaving out undefined values. */
export function apiUrl(path: string, query?: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `${apiBase}${path}${search ? `?${search}` : ''}`;
}

/** Reads a failed answer as a problem; a body that is not one still becomes one with the status. */
export async function problemOf(res: Response): Promise<ApiProblem> {
  const retryAfter = Number(res.headers.get('retry-after')) || undefined;
  try {
    const body = (await res.json()) as ProblemBody | null;
    if (typeof body?.code === 'string') return new ApiProblem(body, retryAfter);
  } catch {
    // not JSON: fall through
  }
  return new ApiProblem({ type: 'about:blank', title: res.statusText || 'Request failed', status: res.status, code: 'http_' + res.status }, retryAfter);
}

/**
 * The one way the UI talks to the API: same-origin fetch with the session cookie. Answers the
 * parsed JSON (undefined for 204) or throws an ApiProblem.
 */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.raw) {
    headers['content-type'] = 'application/octet-stream';
    body = options.raw;
  }
  let res: Response;
  try {
    res = await fetch(apiUrl(path, options.query), { method, headers, body, credentials: 'same-origin', signal: options.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiProblem({ type: 'about:blank', title: 'The Controller could not be reached.', status: 0, code: 'network', detail: (e as Error).message });
  }
  if (!res.ok) throw await problemOf(res);
  if (res.status === 204 || res.headers.get('content-length') === '0') return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}

export const get = <T>(path: string, query?: object, signal?: AbortSignal) => request<T>('GET', path, { query, signal });
export const post = <T>(path: string, json?: unknown, query?: object) => request<T>('POST', path, { json, query });
export const patch = <T>(path: string, json: unknown) => request<T>('PATCH', path, { json });
export const put = <T>(path: string, raw: Blob, query?: object) => request<T>('PUT', path, { raw, query });
export const del = <T = void>(path: string, query?: object) => request<T>('DELETE', path, { query });
