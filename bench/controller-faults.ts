/**
 * Issue 47's failover bench: the rig of test/integration/controller-faults.test.ts (three
 * Controller processes on one FerretDB or MONGODB_URI database, four real Agents each running a
 * simcraft game, a watcher on every Controller, a writer PATCHing through random Controllers)
 * driven through BENCH_FAULTS (default 1000) faults with BENCH_LEASE_TTL_SECONDS leases (default 3).
 * Prints the faults by kind, control back p50/p99/max, double-driven Nodes, games restarted and
 * acknowledged changes lost (each must be 0), and exits 1 when one is not.
 * Run with `npm run bench controller-faults`.
 */
import '../test/support/test-env.js';
import { FaultCluster } from '../test/support/fault-cluster.js';
import { FaultInjector } from '../test/support/fault-injector.js';
import { faultOutcome } from '../test/support/fault-outcome.js';
import { FaultWatcher, FaultWriter } from '../test/support/fault-traffic.js';
import { testMongo } from '../test/support/test-mongodb.js';

const faults = Number(process.env.BENCH_FAULTS ?? 1000);
const leaseTtlSeconds = Number(process.env.BENCH_LEASE_TTL_SECONDS ?? 3);

async function main(): Promise<void> {
  if (!testMongo) throw new Error('no MongoDB-compatible server: set MONGODB_URI or build FerretDB (.ci/run)');
  const cluster = await FaultCluster.start(testMongo, { controllers: 3, agents: 4, leaseTtlSeconds });
  const watchers: FaultWatcher[] = [];
  let failed: boolean;
  try {
    for (const slot of cluster.slots) {
      const w = new FaultWatcher(cluster, slot);
      await w.open();
      watchers.push(w);
    }
    const writer = new FaultWriter(cluster);
    const injector = new FaultInjector(cluster, watchers, process.env.BENCH_VERBOSE ? console.log : undefined);
    const started = Date.now();
    writer.start();
    try {
      await injector.run(faults, 120_000);
    } finally {
      await writer.stop();
    }
    const o = await faultOutcome(cluster, injector.faults, writer, watchers, 60_000);
    const doubleDriven = o.lease.doubleDriven.length;
    console.log(`store: ${testMongo.kind}; 3 Controllers, 4 Agents, ${leaseTtlSeconds} s leases; ${injector.faults.length} faults in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    console.log(`faults by kind: ${JSON.stringify(o.faultsByKind)}`);
    console.log(`control of the faulted Controller's Nodes back: p50 ${(o.controlBackMs.p50 / 1000).toFixed(1)} s, p99 ${(o.controlBackMs.p99 / 1000).toFixed(1)} s, max ${(o.controlBackMs.max / 1000).toFixed(1)} s (bound ${leaseTtlSeconds + 10} s; ${o.faultsWithoutNodes} faults of a Controller that drove none); by kind ${JSON.stringify(o.controlBackByKind)}`);
    console.log(`double-driven Nodes: ${doubleDriven}; games restarted: ${o.gamesRestarted.length}; acknowledged changes lost: ${o.changesLost.length} (of ${o.acknowledged}); watchers behind: ${o.watchersBehind.length}; unexpected answers: ${o.unexpectedAnswers.length}`);
    console.log(`lease terms gained ${o.lease.termsGained}, obeyed by Agents ${o.lease.termsObeyed}; refused: by Agents (stale term) ${o.lease.staleTermRefusals}, by the store (fenced writes) ${o.lease.fencedWritesRefused}; silent Controllers left by Agents ${o.lease.silentControllersLeft}`);
    console.log(`watchers reopened: ${o.reopenings.resumed} resumed, ${o.reopenings.snapshots} given a snapshot; writer refusals ${JSON.stringify(o.refused)}`);
    for (const line of [...injector.timeouts, ...o.lease.doubleDriven, ...o.gamesRestarted, ...o.changesLost, ...o.watchersBehind, ...o.unexpectedAnswers].slice(0, 20)) console.log(`  broken: ${line}`);
    failed = injector.timeouts.length + doubleDriven + o.gamesRestarted.length + o.changesLost.length + o.watchersBehind.length + o.unexpectedAnswers.length > 0;
  } finally {
    for (const w of watchers) w.close();
    await cluster.close();
  }
  process.exit(failed ? 1 : 0);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
