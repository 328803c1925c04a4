/**
 * The one problem module: every error the API answers is a ProblemError with a stable code.
 * Routes and services throw; one middleware maps to RFC 9457 `application/problem+json`.
 */
export const problemCatalog = {
  invalid_request: { status: 400, title: 'The request is invalid.' },
  managed_property: { status: 400, title: 'That server.properties key is managed by Cairn.' },
  invalid_token: { status: 400, title: 'The token is unknown, used or expired.' },
  unauthenticated: { status: 401, title: 'Not signed in, or the credentials are invalid.' },
  invalid_credentials: { status: 401, title: 'The username or password is wrong.' },
  invalid_setup_code: { status: 401, title: 'The setup code is wrong.' },
  forbidden: { status: 403, title: 'Signed in, but not allowed.' },
  password_change_required: { status: 403, title: 'Change your password before doing anything else.' },
  read_only: { status: 403, title: 'That path is read-only.' },
  not_found: { status: 404, title: 'Not found, or not visible to you.' },
  method_not_allowed: { status: 405, title: 'That method is not allowed on this path.' },
  conflict: { status: 409, title: 'The request clashes with existing data or state.' },
  setup_done: { status: 409, title: 'Setup has already been done.' },
  builtin_role: { status: 409, title: 'Built-in roles cannot be changed.' },
  invalid_transition: { status: 409, title: 'That state change is not allowed from the current state.' },
  phase_busy: { status: 409, title: 'Another workflow is running for this server.' },
  insufficient_capacity: { status: 409, title: 'The reservation does not fit on any eligible Node.' },
  server_not_running: { status: 409, title: 'The server is not running.' },
  incompatible_plugin: { status: 409, title: 'The plugin is not compatible with the server.' },
  plugin_denied: { status: 409, title: 'That plugin version is on the denylist.' },
  plugin_required: { status: 409, title: 'Another installed plugin requires this one.' },
  not_network_capable: { status: 409, title: 'This server cannot be a network member.' },
  too_large: { status: 413, title: 'The request body is too large.' },
  too_many_attempts: { status: 429, title: 'Too many attempts; retry later.' },
  internal: { status: 500, title: 'An internal error occurred.' },
  catalog_sync_failed: { status: 502, title: 'The catalog source could not be read or is not a valid feed; the last good catalog stays in use.' },
  node_unavailable: { status: 503, title: 'The server\'s Node is not connected or did not answer in time.' },
  not_ready: { status: 503, title: 'The Controller cannot reach its store.' },
} as const;

export type ProblemCode = keyof typeof problemCatalog;

export const problemTypeBase = 'https://cairn.dev/problems/';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: ProblemCode;
}

export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail?: string;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, detail?: string, headers: Record<string, string> = {}) {
    super(detail ?? problemCatalog[code].title);
    this.name = 'ProblemError';
    this.code = code;
    this.status = problemCatalog[code].status;
    this.detail = detail;
    this.headers = headers;
  }

  toBody(): ProblemBody {
    const body: ProblemBody = {
      type: problemTypeBase + this.code,
      title: problemCatalog[this.code].title,
      status: this.status,
      code: this.code,
    };
    if (this.detail !== undefined) body.detail = this.detail;
    return body;
  }
}

export const isProblem = (e: unknown): e is ProblemError => e instanceof ProblemError;

/** Errors thrown by body parsing (raw-body, koa-body) carry an HTTP status but are not problems yet. */
export function toProblem(error: unknown, bodyLimitBytes: number): ProblemError | undefined {
  if (isProblem(error)) return error;
  const e = error as { status?: number; type?: string; message?: string; expose?: boolean };
  if (e?.status === 413 || e?.type === 'entity.too.large') return new ProblemError('too_large', `The body is larger than ${bodyLimitBytes} bytes.`);
  if (e?.status === 400 || e?.status === 415) return new ProblemError('invalid_request', e.expose ? `body: ${e.message}` : 'body: could not be read.');
  return undefined;
}

export const invalidRequest = (detail: string) => new ProblemError('invalid_request', detail);
export const notFound = (what = 'resource') => new ProblemError('not_found', `No such ${what}.`);
export const forbidden = (detail = 'You do not have the permission this needs.') => new ProblemError('forbidden', detail);
export const conflict = (detail: string) => new ProblemError('conflict', detail);
export const tooManyAttempts = (retryAfterSeconds: number) =>
  new ProblemError('too_many_attempts', `Retry in ${retryAfterSeconds} seconds.`, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
