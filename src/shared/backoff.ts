/** Retry delays (reconnecting, restarting a child): exponential from `initialMs` up to `maxMs`, with "equal jitter" (half fixed, half random) so a fleet does not reconnect in lockstep. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2 };

export function backoffDelay(attempt: number, policy: BackoffPolicy = defaultBackoff, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
