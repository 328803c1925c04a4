/**
 * The one list of error codes the Controller answers with, and the error that carries one.
 * Domain rules, services and the HTTP layer all throw DomainError; only `http/problem.ts` knows
 * the status and title of each code.
 */
import { aboutDuration } from '../../shared/about-duration.js';

export const errorCodes = [
  'invalid_request', 'managed_property', 'invalid_token', 'unauthenticated', 'invalid_credentials', 'totp_required', 'invalid_setup_code',
  'forbidden', 'password_change_required', 'read_only', 'not_found', 'method_not_allowed', 'conflict', 'setup_done',
  'builtin_role', 'invalid_transition', 'phase_busy', 'insufficient_capacity', 'server_not_running', 'incompatible_plugin', 'downgrade_refused',
  'plugin_denied', 'plugin_required', 'not_network_capable', 'request_timeout', 'too_large', 'headers_too_large', 'too_many_attempts',
  'internal', 'insufficient_storage', 'catalog_sync_failed', 'upstream_unavailable', 'plugin_unavailable', 'node_unavailable', 'not_ready',
  'upload_offset_mismatch',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface DomainErrorOptions {
  /** Headers the answer must carry: Retry-After for too_many_attempts, Connection: close for an undrained upload. */
  headers?: Record<string, string>;
  /** A refusal whatever the code says: a resource hidden from the caller answers not_found but is audited DENIED. */
  denied?: boolean;
  /** Where to go on from, carried in the problem: `upload_offset_mismatch` gives the upload's current offset. */
  offset?: number;
}

export class DomainError extends Error {
  readonly headers: Record<string, string>;
  readonly denied: boolean;
  readonly offset?: number;

  constructor(readonly code: ErrorCode, readonly detail?: string, options: DomainErrorOptions = {}) {
    super(detail ?? code);
    this.name = 'DomainError';
    this.headers = options.headers ?? {};
    this.denied = options.denied ?? false;
    if (options.offset !== undefined) this.offset = options.offset;
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export const invalidRequest = (detail: string) => new DomainError('invalid_request', detail);
export const notFound = (what = 'resource') => new DomainError('not_found', `No such ${what}.`);
export const forbidden = (detail = 'You do not have the permission this needs.') => new DomainError('forbidden', detail);
export const conflict = (detail: string) => new DomainError('conflict', detail);
/** `hint` says what else helps than waiting, e.g. who can lift an account's lockout. */
export const tooManyAttempts = (retryAfterSeconds: number, hint?: string) =>
  new DomainError('too_many_attempts', `Too many attempts: try again in ${aboutDuration(retryAfterSeconds)}.${hint ? ` ${hint}` : ''}`, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
