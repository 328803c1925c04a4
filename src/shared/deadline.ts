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

/**
 * A signal that aborts with a TimeoutError after `ms`, or as `also` does. It stands for
 * `AbortSignal.any([AbortSignal.timeout(ms), also])`, which Node 20 gets wrong: the timeout signal is
 * held only weakly there, a garbage collection can take it before it fires, and the wait then never
 * ends (nodejs/node#57736). Here the pending timer holds the signal, and drops its listener on `also`
 * when it fires, so a long-lived `also` collects no listeners beyond `ms`.
 */
export function deadlineSignal(ms: number, also?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const follow = () => controller.abort(also?.reason);
  const timer = setTimeout(() => {
    also?.removeEventListener('abort', follow);
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  timer.unref();
  if (also?.aborted) follow();
  else also?.addEventListener('abort', follow, { once: true });
  return controller.signal;
}
