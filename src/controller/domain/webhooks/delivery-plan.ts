/**
 * When a webhook delivery is tried again. A try waits at most 10 s for an answer; 2xx delivers; a 429
 * waits what its `Retry-After` says (Discord's rate limit); any other answer, a timeout or a network
 * error waits the next step of the plan. Every try counts: after the plan's last step the delivery
 * is FAILED, so an endpoint that answers 429 forever cannot hold a delivery open forever either.
 */
export const tryTimeoutMs = 10_000;
export const retryPlanMs: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];
/** The longest a `Retry-After` is honoured; a longer one waits this long (the plan's last step). */
export const maxRetryAfterMs = 600_000;

export type TryOutcome = { kind: 'answered'; status: number; retryAfter?: string | null } | { kind: 'failed'; error: string };

export type NextStep = { state: 'DELIVERED' } | { state: 'FAILED' } | { state: 'PENDING'; retryAt: Date };

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when unreadable. */
export function retryAfterMs(header: string | null | undefined, now: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Math.ceil(Number(text) * 1000), maxRetryAfterMs);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), maxRetryAfterMs);
}

/** What follows try number `attempts` (1 for the first) that ended with `outcome`. */
export function nextStep(attempts: number, outcome: TryOutcome, now: Date): NextStep {
  if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) return { state: 'DELIVERED' };
  if (attempts > retryPlanMs.length) return { state: 'FAILED' };
  const planned = retryPlanMs[attempts - 1];
  const asked = outcome.kind === 'answered' && outcome.status === 429 ? retryAfterMs(outcome.retryAfter, now) : null;
  return { state: 'PENDING', retryAt: new Date(now.getTime() + (asked ?? planned)) };
}

/** How a try that did not deliver reads in the deliveries list. */
export function tryError(outcome: TryOutcome): string | undefined {
  if (outcome.kind === 'failed') return outcome.error;
  if (outcome.status >= 200 && outcome.status < 300) return undefined;
  return outcome.status === 429 ? 'rate limited (429)' : `answered ${outcome.status}`;
}
