import type { ServerDetail } from './api-types.js';
import type { FaultCluster } from './fault-cluster.js';
import { leaseEvidence, type LeaseEvidence } from './fault-evidence.js';
import type { FaultRecord } from './fault-injector.js';
import type { FaultWatcher, FaultWriter } from './fault-traffic.js';
import { waitFor } from './wait-for.js';

/** What a fault run ended with; each list names what broke a promise (empty when all held). */
export interface FaultOutcome {
  faultsByKind: Record<string, number>;
  /** From each fault's start until the Nodes its Controller drove are driven again, the pause of a stopped Controller included: its Agents leave it while it is stopped. */
  controlBackMs: { p50: number; p99: number; max: number };
  /** Faults of a Controller that drove no Node then (no control to come back; not in the figures). */
  faultsWithoutNodes: number;
  controlBackByKind: Record<string, { p50: number; max: number }>;
  lease: LeaseEvidence;
  gamesRestarted: string[];
  changesLost: string[];
  watchersBehind: string[];
  reopenings: { resumed: number; snapshots: number; resumedAfterNewProcess: number };
  acknowledged: number;
  refused: Record<string, number>;
  unexpectedAnswers: string[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/**
 * Once the faults and the writer have stopped: each server's record has every acknowledged change
 * (no generation acknowledged beyond it, the last one's value when it is the last), its Agent
 * reports that generation, each watcher has been told it, and each game kept its process.
 */
export async function faultOutcome(cluster: FaultCluster, faults: FaultRecord[], writer: FaultWriter, watchers: FaultWatcher[], settleMs: number): Promise<FaultOutcome> {
  const changesLost: string[] = [];
  const watchersBehind: string[] = [];
  const via = cluster.up[0];
  for (const host of cluster.hosts) {
    const acks = writer.acknowledged.filter((a) => a.serverId === host.serverId);
    const byGeneration = new Map<number, number>();
    for (const a of acks) {
      const other = byGeneration.get(a.generation);
      if (other !== undefined && other !== a.diskBytes) changesLost.push(`${host.serverId}: generation ${a.generation} acknowledged for diskBytes ${other} and ${a.diskBytes}`);
      byGeneration.set(a.generation, a.diskBytes);
    }
    const final = await waitFor(async () => {
      const res = await cluster.apiOf(via).get<ServerDetail>(`/servers/${host.serverId}`);
      return res.status === 200 && res.body.observedGeneration === res.body.generation && res.body.convergence === 'CONVERGED' && res.body;
    }, { timeoutMs: settleMs, what: `${host.serverId}: its Agent reports the final generation` }).catch((e: unknown) => {
      changesLost.push((e as Error).message);
      return undefined;
    });
    if (!final) continue;
    const newest = acks.reduce((m, a) => (a.generation > m.generation ? a : m), { generation: 0, diskBytes: 0, serverId: '' });
    if (newest.generation > final.generation) changesLost.push(`${host.serverId}: generation ${newest.generation} acknowledged, the record has ${final.generation}`);
    if (newest.generation === final.generation && final.resources.diskBytes !== newest.diskBytes) changesLost.push(`${host.serverId}: the last acknowledged change set diskBytes ${newest.diskBytes}, the record has ${final.resources.diskBytes ?? 'none'}`);
    for (const w of watchers) {
      await waitFor(() => (w.latestOf(host.serverId)?.generation ?? 0) >= final.generation, { timeoutMs: settleMs, what: `watcher on Controller ${w.slot.index} told generation ${final.generation} of ${host.serverId}` })
        .catch((e: unknown) => watchersBehind.push((e as Error).message));
    }
  }
  for (const w of watchers) watchersBehind.push(...w.backwards.map((b) => `watcher on Controller ${w.slot.index}: ${b}`));
  const gamesRestarted: string[] = [];
  for (const host of cluster.hosts) {
    const pid = await cluster.gamePidOf(host);
    if (pid !== host.gamePid) gamesRestarted.push(`${host.serverId}: game pid ${host.gamePid} became ${pid}`);
    else {
      try {
        process.kill(pid, 0);
      } catch {
        gamesRestarted.push(`${host.serverId}: game pid ${pid} is gone`);
      }
    }
  }
  const reopenings = watchers.flatMap((w) => w.reopenings);
  const spread = (ms: number[]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
  };
  // Control back is timed for the faults of Controllers that drove Nodes.
  const timed = faults.filter((f) => f.nodes > 0);
  const faultsByKind: Record<string, number> = {};
  for (const f of faults) faultsByKind[f.kind] = (faultsByKind[f.kind] ?? 0) + 1;
  return {
    faultsByKind,
    controlBackMs: spread(timed.map((f) => f.controlBackMs)),
    faultsWithoutNodes: faults.length - timed.length,
    controlBackByKind: Object.fromEntries(Object.keys(faultsByKind).map((kind) => {
      const { p50, max } = spread(timed.filter((f) => f.kind === kind).map((f) => f.controlBackMs));
      return [kind, { p50, max }];
    })),
    lease: leaseEvidence(cluster),
    gamesRestarted,
    changesLost,
    watchersBehind,
    reopenings: {
      resumed: reopenings.filter((r) => !r.snapshot).length,
      snapshots: reopenings.filter((r) => r.snapshot).length,
      // An id from a process that is gone cannot resume: that is the snapshot's case.
      resumedAfterNewProcess: reopenings.filter((r) => !r.snapshot && r.newProcess).length,
    },
    acknowledged: writer.acknowledged.length,
    refused: Object.fromEntries(writer.refused),
    unexpectedAnswers: writer.unexpected,
  };
}
