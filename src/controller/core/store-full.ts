/**
 * The store's disk has no room (ENOSPC, or EDQUOT for a quota): the write was refused and nothing
 * of it was kept, in memory or on disk. Requests fail with `insufficient_storage` (507) rather
 * than `internal`: the same write succeeds once space is freed.
 */
export class StoreFullError extends Error {
  constructor(cause: Error) {
    super(`the store's disk is full: ${cause.message}`, { cause });
    this.name = 'StoreFullError';
  }
}

export const isNoSpace = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
};

/** A disk-full error becomes a StoreFullError; any other failure passes unchanged. */
export const asStoreError = (e: unknown): unknown => (isNoSpace(e) && !(e instanceof StoreFullError) ? new StoreFullError(e as Error) : e);
