import { expect } from 'chai';
import { initialStatus, type NodeState } from '../../src/controller/actors/fleet.js';
import { NodeStatusWriter } from '../../src/controller/services/nodes/status-writer.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';

const state = (nodeId: string, connectionState: NodeState['connectionState']): NodeState => ({
  nodeId, adminState: 'ENABLED', connectionState, acceptsPlacements: connectionState === 'HEALTHY', conditions: [],
  status: { ...initialStatus(), connectionState }, address: '',
});

/** A store whose node updates wait until the test lets each one finish. */
function slowStore() {
  const written: { nodeId: string; connectionState: string }[] = [];
  const pending: (() => void)[] = [];
  let failNext = false;
  const repos = {
    nodes: {
      update: (filter: { _id: string }, set: { status: { connectionState: string } }) => new Promise<number>((resolve, reject) => {
        pending.push(() => {
          if (failNext) {
            failNext = false;
            return reject(new Error('store down'));
          }
          written.push({ nodeId: filter._id, connectionState: set.status.connectionState });
          resolve(1);
        });
      }),
    },
  } as unknown as Repositories;
  return { repos, written, pending, failOnce: () => (failNext = true) };
}

describe('NodeStatusWriter', () => {
  it('writes one Node\'s changes one at a time, in the order they happened', async () => {
    const store = slowStore();
    const writer = new NodeStatusWriter(store.repos, silentLogger);
    writer.write(state('n1', 'HEALTHY'));
    writer.write(state('n1', 'DEGRADED'));
    await waitFor(() => store.pending.length === 1, { what: 'the first write' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.pending).to.have.length(1);
    store.pending.shift()!();
    await waitFor(() => store.pending.length === 1, { what: 'the second write' });
    store.pending.shift()!();
    await waitFor(() => store.written.length === 2, { what: 'both writes' });
    expect(store.written.map((w) => w.connectionState)).to.deep.equal(['HEALTHY', 'DEGRADED']);
  });

  it('a failed write is logged and the next one still lands; flush writes the last states after what is queued', async () => {
    const store = slowStore();
    const writer = new NodeStatusWriter(store.repos, silentLogger);
    store.failOnce();
    writer.write(state('n1', 'HEALTHY'));
    const flushed = writer.flush([state('n1', 'UNREACHABLE'), state('n2', 'AWAITING_ENROLLMENT')]);
    let done = false;
    void flushed.then(() => (done = true));
    await waitFor(() => store.pending.length === 2, { what: 'the n1 write and the n2 flush' });
    for (const finish of store.pending.splice(0)) finish();
    await waitFor(() => store.pending.length === 1, { what: 'the n1 flush' });
    expect(done).to.equal(false);
    store.pending.shift()!();
    await flushed;
    expect(store.written).to.deep.equal([
      { nodeId: 'n2', connectionState: 'AWAITING_ENROLLMENT' },
      { nodeId: 'n1', connectionState: 'UNREACHABLE' },
    ]);
  });
});
