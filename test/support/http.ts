import type { Dispatcher } from 'undici';

/**
 * A small HTTP client for tests: JSON in and out, the session cookie or a bearer token, raw access
 * when needed. A body is `unknown` until the caller names its type from test/support/api-types.ts.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** Ends the request early (e.g. `AbortSignal.timeout`): the call rejects. */
  signal?: AbortSignal;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    public auth: { cookie?: string; token?: string } = {},
    /** For HTTPS with a test CA: a dispatcher that trusts it. */
    readonly dispatcher?: Dispatcher,
  ) {}

  withCookie(cookie: string): ApiClient {
    return new ApiClient(this.baseUrl, { cookie }, this.dispatcher);
  }

  withToken(token: string): ApiClient {
    return new ApiClient(this.baseUrl, { token }, this.dispatcher);
  }

  anonymous(): ApiClient {
    return new ApiClient(this.baseUrl, {}, this.dispatcher);
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.auth.cookie) headers.cookie = this.auth.cookie;
    if (this.auth.token) headers.authorization = `Bearer ${this.auth.token}`;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/octet-stream';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const url = path.startsWith('/api/') || path.startsWith('/healthz') || path.startsWith('/readyz') || path.startsWith('/metrics')
      ? this.baseUrl + path
      : this.baseUrl + '/api/v1' + path;
    const res = await fetch(url, { method, headers, body, ...(options.signal ? { signal: options.signal } : {}), ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json') && text.length > 0) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string, options?: RequestOptions) { return this.request<T>('GET', path, options); }
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions) { return this.request<T>('POST', path, { ...options, body }); }
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions) { return this.request<T>('PUT', path, { ...options, body }); }
  patch<T = unknown>(path: string, body?: unknown, options?: RequestOptions) { return this.request<T>('PATCH', path, { ...options, body }); }
  delete<T = unknown>(path: string, options?: RequestOptions) { return this.request<T>('DELETE', path, options); }
}

/** The `name=value` part of the session cookie from a Set-Cookie header. */
export function sessionCookieFrom(res: ApiResponse): string {
  const header = res.headers.get('set-cookie') ?? '';
  const match = /(__Host-cairn_session=[^;]+)/.exec(header);
  if (!match) throw new Error(`no session cookie in response (status ${res.status}): ${res.text}`);
  return match[1];
}
