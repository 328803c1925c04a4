import type { ServerReport } from '../../domain/server-report.js';
import type { AgentInbound } from '../../link/agent-events.js';
import { StepFailure } from './step-failure.js';

const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));

export interface ReportWait {
  feed: Pick<AgentInbound, 'onServerReport'>;
  nodeId: string;
  serverId: string;
  accept: (report: ServerReport) => boolean;
  timeoutMs: number;
  /** What the Node must do, for the failure's message ("stop the server"). */
  what: string;
  nodeName: string;
  /** Ends the wait early with the signal's reason (the Controller stopping). */
  signal: AbortSignal;
}

/**
 * The first report of the server from that Node that `accept` takes. It listens from the call on,
 * so a report that answers a change made right after the call is not missed; it fails when the
 * deadline passes. The promise is marked handled, so a wait given up on never crashes the process.
 */
export function awaitReport(w: ReportWait): Promise<ServerReport> {
  const promise = new Promise<ServerReport>((resolve, reject) => {
    if (w.signal.aborted) {
      reject(abortReason(w.signal));
      return;
    }
    const end = () => {
      clearTimeout(timer);
      unsubscribe();
      w.signal.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      end();
      reject(abortReason(w.signal));
    };
    const unsubscribe = w.feed.onServerReport((nodeId, report) => {
      if (nodeId !== w.nodeId || report.serverId !== w.serverId || !w.accept(report)) return;
      end();
      resolve(report);
    });
    const timer = setTimeout(() => {
      end();
      reject(new StepFailure(`Node ${w.nodeName} did not ${w.what} within ${Math.round(w.timeoutMs / 1000)} s`));
    }, w.timeoutMs);
    w.signal.addEventListener('abort', aborted, { once: true });
  });
  promise.catch(() => undefined);
  return promise;
}

/**
 * `work`, unless `signal` aborts first (a Node lost mid-step, the Controller stopping): then the
 * signal's reason. Work given up on goes on until its own deadline; its outcome is ignored.
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(abortReason(signal));
    signal.addEventListener('abort', aborted, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}
