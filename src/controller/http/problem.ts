import { DomainError, isDomainError, type ErrorCode } from '../core/errors.js';
import { StoreFullError } from '../core/store-full.js';
import { StoreUnavailableError } from '../core/store-unavailable.js';

/**
 * The one problem module: every error the API answers is a DomainError with a stable code.
 * Routes and services throw; one middleware maps it to RFC 9457 `application/problem+json`
 * with the status and title this catalogue gives its code.
 */
export const problemCatalog = {
  invalid_request: { status: 400, title: 'The request is invalid.' },
  managed_property: { status: 400, title: 'That server.properties key is managed by Cairn.' },
  invalid_token: { status: 400, title: 'The token is unknown, used or expired.' },
  unauthenticated: { status: 401, title: 'Not signed in, or the credentials are invalid.' },
  invalid_credentials: { status: 401, title: 'The sign-in credentials are wrong.' },
  totp_required: { status: 401, title: 'This account needs a second factor: send totpCode (an authentication code or a recovery code).' },
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
  downgrade_refused: { status: 409, title: 'That is an older game version than the server runs; worlds a newer version saved cannot be opened by an older one.' },
  plugin_denied: { status: 409, title: 'That plugin version is on the denylist.' },
  plugin_required: { status: 409, title: 'Another installed plugin requires this one.' },
  not_network_capable: { status: 409, title: 'This server cannot be a network member.' },
  request_timeout: { status: 408, title: 'The request body stalled; send it again.' },
  too_large: { status: 413, title: 'The request body is too large.' },
  headers_too_large: { status: 431, title: 'The request line and headers are too large.' },
  too_many_attempts: { status: 429, title: 'Too many attempts; retry later.' },
  internal: { status: 500, title: 'An internal error occurred.' },
  insufficient_storage: { status: 507, title: 'There is no room left on disk for this write.' },
  catalog_sync_failed: { status: 502, title: 'The catalog source could not be read or is not a valid feed; the last good catalog stays in use.' },
  upstream_unavailable: { status: 502, title: 'An upstream (Modrinth) could not be read, and nothing read from it before is kept.' },
  plugin_unavailable: { status: 502, title: 'The plugin\'s jar could not be fetched from its source, or it does not match the checksum its source lists.' },
  node_unavailable: { status: 503, title: 'The server\'s Node is not connected or did not answer in time.' },
  not_ready: { status: 503, title: 'The Controller cannot reach its store.' },
  upload_offset_mismatch: { status: 409, title: 'The bytes are not at the upload\'s offset; continue from the `offset` this problem gives.' },
} as const satisfies Record<ErrorCode, { status: number; title: string }>;

export const problemTypeBase = 'https://cairn.dev/problems/';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: ErrorCode;
  offset?: number;
}

export const statusOf = (error: DomainError): number => problemCatalog[error.code].status;

export function problemBody(error: DomainError): ProblemBody {
  const body: ProblemBody = {
    type: problemTypeBase + error.code,
    title: problemCatalog[error.code].title,
    status: statusOf(error),
    code: error.code,
  };
  if (error.detail !== undefined) body.detail = error.detail;
  if (error.offset !== undefined) body.offset = error.offset;
  return body;
}

export const storeFullDetail = "The Controller's disk is full: nothing was stored.";

/** Errors thrown by body parsing (raw-body, koa-body) carry an HTTP status but are not domain errors yet. */
export function toDomainError(error: unknown, bodyLimitBytes: number): DomainError | undefined {
  if (isDomainError(error)) return error;
  if (error instanceof StoreFullError) return new DomainError('insufficient_storage', storeFullDetail);
  if (error instanceof StoreUnavailableError) return new DomainError('not_ready', 'The store does not answer; retry shortly.', { headers: { 'Retry-After': '5' } });
  const e = error as { status?: number; type?: string; message?: string; expose?: boolean } | null | undefined;
  if (e?.status === 413 || e?.type === 'entity.too.large') return new DomainError('too_large', `The body is larger than ${bodyLimitBytes} bytes.`);
  if (e?.status === 400 || e?.status === 415) return new DomainError('invalid_request', e.expose ? `body: ${e.message}` : 'body: could not be read.');
  return undefined;
}
