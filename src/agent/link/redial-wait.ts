import { backoffDelay, defaultBackoff, type BackoffPolicy } from '../../shared/backoff.js';

/** Redirects followed without waiting, between two Welcomes; a longer chain (holders changing under it) backs off. */
const maxQuickRedirects = 3;
/** The backoff step a redirected Agent stays at (2 s with the default policy) until its next Welcome. */
const redirectBackoffAttempt = 2;
/** Among several Controllers, the longest wait between dials as a share of the silence limit (2.5 s at 15 s leases). */
const clusterBackoffShare = 1 / 3;

/** What the link knows when a stream ended, for the wait before the next dial. */
export interface RedialState {
  /** Failed dials since the last Welcome, this one not counted. */
  attempt: number;
  /** Redirects followed since the last Welcome, this one counted. */
  redirects: number;
  /** This stream ended in a redirect (`cairn-owner`). */
  redirected: boolean;
  /** The Controllers' silence limit (0: none known, a Controller alone on its store). */
  silenceLimitMs: number;
  /** The last dial's credential was refused. */
  credentialRefused: boolean;
}

/**
 * How long the Agent waits before it dials again: jittered exponential backoff, reset by each
 * Welcome. A redirect is an answer, not a failure: the first few are followed at once, and once
 * redirected the waits stay short (Controllers answer, and a dead holder's lease runs out soon).
 * Among several Controllers (a silence limit was given) a failed dial most likely met one that is
 * dead or stopped while the others answer, and a Node's new holder takes it within a lease: waits
 * stay under a third of the silence limit, so the Agent does not sleep through its takeover. A
 * refused credential always backs off in full.
 */
export function redialWaitMs(state: RedialState, policy: BackoffPolicy = defaultBackoff, random: () => number = Math.random): number {
  if (state.redirected && state.redirects <= maxQuickRedirects) return 0;
  const attempt = state.redirects > 0 ? Math.min(state.attempt, redirectBackoffAttempt) : state.attempt;
  const inCluster = state.silenceLimitMs > 0 && !state.credentialRefused;
  const capped = inCluster ? { ...policy, maxMs: Math.min(policy.maxMs, Math.max(policy.initialMs, state.silenceLimitMs * clusterBackoffShare)) } : policy;
  return backoffDelay(attempt, capped, random);
}
