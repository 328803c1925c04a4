/** A wait that ran past its deadline; `what` names what was waited for. */
export class DeadlineError extends Error {
  constructor(readonly what: string, readonly ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * Settles as `work` does, or rejects with DeadlineError after `ms`. The work itself is not
 * cancelled (a store call cannot be); a late rejection of it is swallowed so it is not unhandled.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
