import { DeadlineError, withDeadline } from '../../shared/deadline.js';
import { StoreFullError } from '../core/store-full.js';

/** What `/readyz` asks: the store's ping, and the Agent link's state (reported, never failing readiness). */
export interface ReadinessProbes {
  pingStore(): Promise<void>;
  agentLink(): { listening: boolean; agentsConnected: number };
}

export interface ReadinessReport {
  status: 'ready' | 'unready';
  /** `writable` is false while writes are refused (a full disk), or the store does not answer. */
  store: { ok: boolean; writable: boolean; detail?: string };
  agentLink: { listening: boolean; agentsConnected: number };
}

/** A store that takes longer than this to answer a ping is as good as down for the requests behind the probe. */
export const storePingDeadlineMs = 1000;

/**
 * Ready means the store answers. The Agent link is shown beside it but does not count: a
 * Controller with no Agent connected still serves the API, and taking it out of a load balancer
 * would not bring any Agent back. The detail names the failure's kind, not its message, since
 * the probe answers anyone.
 */
export async function checkReadiness(probes: ReadinessProbes, deadlineMs = storePingDeadlineMs): Promise<{ report: ReadinessReport; cause?: unknown }> {
  const agentLink = probes.agentLink();
  try {
    await withDeadline(probes.pingStore(), deadlineMs, 'store ping');
    return { report: { status: 'ready', store: { ok: true, writable: true }, agentLink } };
  } catch (cause) {
    const detail =
      cause instanceof DeadlineError ? `no answer to a ping within ${deadlineMs} ms`
      : cause instanceof StoreFullError ? `not writable: the disk is full (${failureKind(cause.cause)}); writes are refused until space is freed`
      : `ping failed (${failureKind(cause)})`;
    return { report: { status: 'unready', store: { ok: false, writable: false, detail }, agentLink }, cause };
  }
}

function failureKind(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code : error.name;
}
