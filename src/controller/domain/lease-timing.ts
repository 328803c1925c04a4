/**
 * How long leases last and when their holder must stop. A holder stops driving `marginMs` before
 * the expiry it wrote, so a rival whose clock runs up to `marginMs` ahead never sees the lease
 * expired while the holder still acts on it; fencing by term covers what arrives later still
 * (a command delayed in flight, a holder paused mid-write).
 */
export interface LeaseTiming {
  ttlMs: number;
  renewEveryMs: number;
  marginMs: number;
}

/** The timing of a time to live: renewed every third of it, stopped a fifth of it before expiry (15 s: 5 s and 3 s). */
export const leaseTimingOf = (ttlMs: number): LeaseTiming => ({ ttlMs, renewEveryMs: Math.round(ttlMs / 3), marginMs: Math.round(ttlMs / 5) });

export const defaultLeaseTiming: LeaseTiming = leaseTimingOf(15_000);

/** Whether the holder may still act on a lease expiring at `expiresAt`, by its own clock. */
export const mayDrive = (expiresAt: number, now: number, timing: LeaseTiming): boolean => now < expiresAt - timing.marginMs;

/** Whether a timing keeps at least two renewals inside one lease, and the margin inside what is left. */
export const isSafeTiming = (t: LeaseTiming): boolean =>
  t.renewEveryMs > 0 && t.marginMs >= 0 && t.renewEveryMs * 2 <= t.ttlMs - t.marginMs;

/**
 * How long an Agent may hear nothing from its Controller before it leaves (Welcome.silence_limit_ms):
 * half the time to live, so an Agent of a frozen holder dials again before the lease can pass to
 * another Controller, and has half a lease left to reach it (7.5 s at 15 s).
 */
export const agentSilenceLimitMs = (t: LeaseTiming): number => Math.round(t.ttlMs / 2);
