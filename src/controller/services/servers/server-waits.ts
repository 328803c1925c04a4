import { exitedBeforeReady, type LastCrash } from '../../domain/last-crash.js';
import type { ServerDoc } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';
import type { ServerChangeHub } from './change-hub.js';

/** What a wait makes of the server as stored: done, failed (why), or not yet (undefined). */
export type Verdict = { done: true } | { failed: string } | undefined;

export class WaitFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitFailure';
  }
}

/**
 * Settles on the first version of the server's record `judge` decides on: it listens from the
 * call on, then reads the record (so a change made before the call is not missed either). Fails
 * past `timeoutMs`, when the server is deleted, or when `signal` aborts (the Controller stopping).
 * The workflows' waits (restore, update) are this.
 */
export function awaitServer(
  deps: Pick<ServiceDeps, 'repos'>, changes: ServerChangeHub, serverId: string,
  judge: (doc: ServerDoc) => Verdict, timeoutMs: number, what: string, signal: AbortSignal = new AbortController().signal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', aborted);
      if (error) reject(error);
      else resolve();
    };
    const decide = (doc: ServerDoc | null, deleted = false) => {
      if (!doc || deleted) return settle(new WaitFailure('the server was deleted'));
      const verdict = judge(doc);
      if (!verdict) return undefined;
      return 'done' in verdict ? settle() : settle(new WaitFailure(verdict.failed));
    };
    const aborted = () => settle(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    const timer = setTimeout(() => settle(new WaitFailure(`the server did not ${what} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    const unsubscribe = changes.subscribe(({ doc, deleted }) => {
      if (doc._id === serverId) decide(doc, deleted);
    });
    if (signal.aborted) return aborted();
    signal.addEventListener('abort', aborted, { once: true });
    deps.repos.servers.findById(serverId).then((doc) => decide(doc), (e: unknown) => settle(e instanceof Error ? e : new Error(String(e))));
    return undefined;
  });
}

const busy = ['RUNNING', 'STARTING', 'STOPPING'];

/** Nothing runs: the hold (or a desired stop) has taken effect on the Node. */
export const isStopped = (doc: ServerDoc): Verdict => (busy.includes(doc.observed.runtimeState ?? 'STOPPED') ? undefined : { done: true });

/**
 * The Node has taken the generation the update set and the server is in its desired runtime
 * state (RUNNING: its ready line was seen). Any crash of the new software fails the start at once,
 * saying how it ended and what it printed last (`crashOf`, the Agent's report kept in memory):
 * a restart of the same software would not fare better, and the rollback should not wait for it.
 */
export const startedAt = (generation: number, crashOf: (doc: ServerDoc) => LastCrash | undefined = () => undefined) => (doc: ServerDoc): Verdict => {
  const { observed, desired } = doc;
  if (observed.observedGeneration < generation) return undefined;
  if (observed.runtimeState === 'CRASHED') return { failed: exitedBeforeReady(crashOf(doc)) };
  if (desired.state === 'RUNNING') return observed.runtimeState === 'RUNNING' ? { done: true } : undefined;
  return observed.installed && observed.runtimeState === 'STOPPED' ? { done: true } : undefined;
};
