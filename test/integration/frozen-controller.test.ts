import { expect } from 'chai';
import { FaultCluster, type ControllerSlot, type FaultHost } from '../support/fault-cluster.js';
import { leaseEvidence } from '../support/fault-evidence.js';
import { testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

const leaseTtlSeconds = 3;
/**
 * The holder's lease runs out at most a time to live after it froze, another Controller claims it
 * within a third of that or at the Agent's next hello, and the Agent has left the frozen one after
 * half of it (its silence limit): two leases and a few seconds for the redial on a loaded machine.
 */
const drivenAgainWithinMs = 2 * leaseTtlSeconds * 1000 + 5_000;

/**
 * Issue 47: a SIGSTOPped Controller keeps its Agents' TCP links open. Its Agents leave it once it
 * has been silent for the limit its Welcome stated, and their Nodes are driven by another Controller
 * while it is still stopped, not only when it thaws (or after gRPC keepalive's 35 s).
 */
(testMongo ? describe : describe.skip)(`an Agent leaves a frozen Controller (${testMongo?.kind ?? 'not run: no MongoDB-compatible server'})`, function () {
  this.timeout(300_000);
  let cluster: FaultCluster;

  before(async () => {
    cluster = await FaultCluster.start(testMongo!, { controllers: 2, agents: 2, leaseTtlSeconds });
  });

  after(async () => {
    // Undefined only when `before` failed first (FaultCluster.start cleans up after itself).
    const started = cluster as FaultCluster | undefined;
    for (const slot of started?.slots ?? []) if (slot.state === 'stopped') slot.process.child.kill('SIGCONT');
    await started?.close();
  });

  it(`its Node is driven by another Controller within ${drivenAgainWithinMs} ms of the SIGSTOP, while it is still stopped`, async () => {
    const [host] = cluster.hosts;
    const other = (slot: ControllerSlot) => cluster.slots.find((s) => s !== slot)!;
    const holder = await waitFor(() => cluster.drivenBy(host, cluster.slots[0]), { timeoutMs: 30_000, what: `${host.nodeId} driven` });
    const silentBefore = silentEvents(host).length;
    holder.state = 'stopped';
    holder.process.child.kill('SIGSTOP');
    const frozenAt = Date.now();
    try {
      const next = await waitFor(() => cluster.drivenBy(host, other(holder)), { timeoutMs: drivenAgainWithinMs + 30_000, intervalMs: 100, what: `${host.nodeId} driven by the Controller that is up` });
      const tookMs = Date.now() - frozenAt;
      expect(next).to.equal(other(holder));
      expect(tookMs, `driven again after ${tookMs} ms`).to.be.at.most(drivenAgainWithinMs);
      const silent = silentEvents(host).slice(silentBefore);
      expect(silent.length, 'the Agent said why it left').to.be.at.least(1);
      expect(silent[0]).to.include({ level: 40, welcomed: true, limitMs: leaseTtlSeconds * 500 });
    } finally {
      holder.process.child.kill('SIGCONT');
      holder.state = 'up';
    }
    // Thawed, the former holder finds its lease gone and drives nothing of the Node: still one holder, and the game ran on.
    await waitFor(() => cluster.allDriven(), { timeoutMs: 30_000, what: 'every Node driven after the thaw' });
    expect(leaseEvidence(cluster).doubleDriven, 'no Node driven by two Controllers').to.deep.equal([]);
    expect(await cluster.gamePidOf(host)).to.equal(host.gamePid);
  });
});

function silentEvents(host: FaultHost): Record<string, unknown>[] {
  return host.agent.stderr.split('\n').filter((l) => l.includes('"controller_silent"')).map((l) => JSON.parse(l) as Record<string, unknown>);
}
