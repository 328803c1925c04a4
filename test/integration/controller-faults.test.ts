import { expect } from 'chai';
import { FaultCluster } from '../support/fault-cluster.js';
import { FaultInjector } from '../support/fault-injector.js';
import { faultOutcome } from '../support/fault-outcome.js';
import { FaultWatcher, FaultWriter } from '../support/fault-traffic.js';
import { testMongo } from '../support/test-mongodb.js';

/** Short leases so 50 faults fit a CI run: renewed every 1 s, stopped 0.6 s before expiry (CAIRN_FAULTS_LEASE_TTL_SECONDS to try others). */
const leaseTtlSeconds = Number(process.env.CAIRN_FAULTS_LEASE_TTL_SECONDS ?? 3);
const faultCount = Number(process.env.CAIRN_FAULTS ?? 50);
/**
 * Issue 47's 25 s at the default 15 s lease is the lease and 10 s: here 13 s, counted from the
 * fault's start, a stopped Controller's pause included (its Agents leave it after half a lease of
 * silence). The floor is the lease's expiry (ttl) and the claim at the next renewal or hello
 * (ttl/3); then the Agent's redial (≤ 2 s), and slack for a loaded machine.
 */
const controlBackWithinMs = leaseTtlSeconds * 1000 + 10_000;

/**
 * Issue 47, "Faults, measured": three Controller processes on one FerretDB (or MONGODB_URI)
 * database with 3 s leases, four real Agents each running a simcraft game, a watcher on every
 * Controller and a writer PATCHing the servers through random Controllers, while at least 50
 * faults are injected: kill -9 and a new process, SIGSTOP for twice the lease (the 30 s
 * at 15 s leases) or half of it, a clean restart; faults of different Controllers overlap (a stop
 * with anything while one stays up, a kill or restart only while both others are up). No Node is driven by two Controllers, control of the faulted Controller's Nodes
 * comes back within the scaled bound (each Node timed until it is first seen driven again; a later
 * fault of its new holder is that fault's to time), no game restarts, no acknowledged change is lost, and every watcher resumes
 * or is given a snapshot.
 */
(testMongo ? describe : describe.skip)(`Controller faults (${testMongo?.kind ?? 'not run: no MongoDB-compatible server'})`, function () {
  this.timeout(600_000);
  let cluster: FaultCluster;
  const watchers: FaultWatcher[] = [];

  before(async () => {
    cluster = await FaultCluster.start(testMongo!, { controllers: 3, agents: 4, leaseTtlSeconds });
    for (const slot of cluster.slots) {
      const w = new FaultWatcher(cluster, slot);
      await w.open();
      watchers.push(w);
    }
  });

  after(async () => {
    for (const w of watchers) w.close();
    // Undefined only when `before` failed first (FaultCluster.start cleans up after itself).
    await (cluster as FaultCluster | undefined)?.close();
  });

  it(`keeps its promises through ${faultCount} faults`, async () => {
    const writer = new FaultWriter(cluster);
    const injector = new FaultInjector(cluster, watchers, process.env.CAIRN_FAULTS_VERBOSE ? (l) => console.log(`      ${l}`) : undefined);
    const started = Date.now();
    writer.start();
    try {
      await injector.run(faultCount, 90_000);
    } finally {
      await writer.stop();
    }
    // After a timeout the rig may be wedged: the outcome is summed up without long waits.
    const outcome = await faultOutcome(cluster, injector.faults, writer, watchers, injector.timeouts.length > 0 ? 5_000 : 30_000);
    for (const timeout of injector.timeouts) console.log(`      ${timeout}`);
    // The first Node a timeout names, as every process told it: CI keeps no logs, so a failure there says why here.
    const stuck = cluster.hosts.find((h) => injector.timeouts.some((t) => t.includes(h.nodeId)));
    // From shortly before the stall (the timeout came 90 s after its fault): what led to it comes first.
    if (stuck) for (const line of cluster.storyOf(stuck.nodeId, 150_000).slice(0, 150)) console.log(`        ${line}`);
    for (const finding of outcome.lease.doubleDriven.slice(0, 10)) console.log(`      double driving: ${finding}`);
    console.log(`      ${injector.faults.length} faults in ${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify({ ...outcome, lease: { ...outcome.lease, doubleDriven: outcome.lease.doubleDriven.length } })}`);
    expect(injector.timeouts, 'control back after every fault').to.deep.equal([]);
    expect(injector.faults.length).to.be.at.least(faultCount);
    expect(Object.keys(outcome.faultsByKind).sort(), 'every kind of fault injected').to.deep.equal(['kill', 'long-stop', 'restart', 'short-stop']);
    expect(outcome.lease.doubleDriven, 'no Node driven by two Controllers').to.deep.equal([]);
    expect(outcome.lease.termsObeyed, 'the Agents obeyed new terms as their Nodes changed hands').to.be.at.least(cluster.hosts.length);
    expect(injector.faults.length - outcome.faultsWithoutNodes, 'faults of Controllers that drove Nodes (those control back is timed for)').to.be.at.least(faultCount / 2);
    expect(outcome.controlBackMs.p99, `control of the faulted Controller's Nodes back within ${controlBackWithinMs} ms of the fault (p99)`).to.be.at.most(controlBackWithinMs);
    expect(outcome.gamesRestarted, 'no game restarted').to.deep.equal([]);
    expect(outcome.changesLost, 'no acknowledged change lost').to.deep.equal([]);
    expect(outcome.unexpectedAnswers, 'only 200, 503, a 409 conflict or a cut connection').to.deep.equal([]);
    expect(outcome.acknowledged, 'the writer got changes through').to.be.at.least(faultCount);
    expect(outcome.watchersBehind, 'every watcher told every change, never an older after a newer').to.deep.equal([]);
    expect(outcome.reopenings.resumed + outcome.reopenings.snapshots, 'each watcher reopened after each fault of its Controller').to.equal(injector.faults.length);
    expect(outcome.reopenings.resumedAfterNewProcess, 'an id from a process that is gone gets a snapshot').to.equal(0);
  });
});
