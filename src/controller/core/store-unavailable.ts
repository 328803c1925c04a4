/**
 * The store did not answer in time (no primary, a dropped or silent connection). Requests fail
 * with `not_ready` (503) rather than `internal`: nothing is wrong with the request, and a retry
 * after the outage succeeds.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: Error) {
    super(`the store does not answer: ${cause.message}`, { cause });
    this.name = 'StoreUnavailableError';
  }

  /** By name, as `DuplicateKeyError` (store/collection.ts) and for the same reason: the lazily imported MongoDB adapter. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof Error && value.name === 'StoreUnavailableError';
  }
}
