import type { ServerReport } from '../../domain/server-report.js';
import type { ServerChange } from './change-hub.js';
import { Listeners } from '../../../shared/listeners.js';

export type ReconciledListener = (seconds: number) => void;

interface Pending {
  generation: number;
  nodeId?: string;
  since: number;
}

/** Servers timed at once; beyond this the longest-waiting one is dropped (so memory stays bounded). */
export const maxTimedServers = 10_000;

/**
 * Times each server's reconcile: from the moment the Controller records a new desired generation
 * until the server's Agent reports an observed generation at least that high. Only the latest
 * generation per server is timed (one that is superseded before the Agent saw it restarts the
 * clock), only in memory (a restarted Controller starts timing again at the next change), and a
 * deleted server is forgotten. Times come from a monotonic clock, never the wall clock.
 */
export class ReconcileTimer {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Listeners<Parameters<ReconciledListener>>();

  constructor(private readonly now: () => number = () => performance.now(), private readonly capacity = maxTimedServers) {}

  /** A server's record as just written (`ServerChangeHub` carries every write). */
  changed({ doc, deleted }: ServerChange): void {
    if (deleted) {
      this.pending.delete(doc._id);
      return;
    }
    const timed = this.pending.get(doc._id);
    if (timed && timed.generation >= doc.generation) {
      timed.nodeId = doc.nodeId;
      return;
    }
    if (doc.observed.observedGeneration >= doc.generation) return;
    // Deleted and set again, so the Map's order stays the order of the oldest start.
    this.pending.delete(doc._id);
    this.pending.set(doc._id, { generation: doc.generation, nodeId: doc.nodeId, since: this.now() });
    if (this.pending.size > this.capacity) this.pending.delete(this.pending.keys().next().value!);
  }

  /** A report from `nodeId`; only the server's own Node ends its timing. */
  reported(nodeId: string, report: Pick<ServerReport, 'serverId' | 'observedGeneration'>): void {
    const timed = this.pending.get(report.serverId);
    if (!timed || timed.nodeId !== nodeId || report.observedGeneration < timed.generation) return;
    this.pending.delete(report.serverId);
    const seconds = Math.max(0, this.now() - timed.since) / 1000;
    this.listeners.emit(seconds);
  }

  /** Servers whose latest generation the Agent has not reported yet. */
  get timing(): number {
    return this.pending.size;
  }

  onReconciled(listener: ReconciledListener): () => void {
    return this.listeners.add(listener);
  }
}
