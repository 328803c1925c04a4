import { expect } from 'chai';
import { silentLogger } from '../../src/shared/logger.js';
import { HolderWork } from '../../src/controller/services/leases/holder-work.js';
import type { LeaseChange } from '../../src/controller/services/leases/membership.js';

/** Records what was settled, in order; `gate` holds a Node's backup recovery until released. */
function leftWork() {
  const calls: string[] = [];
  const gates = new Map<string, Promise<void>>();
  return {
    calls,
    gates,
    left: {
      backups: { recover: async (nodeId?: string) => { calls.push(`backups ${nodeId ?? '*'}`); await gates.get(nodeId ?? '*'); } },
      workflows: { resume: (nodeId?: string) => { calls.push(`workflows ${nodeId ?? '*'}`); return Promise.resolve(); } },
    },
  };
}

function membership() {
  let listener: ((change: LeaseChange, nodeId: string) => void) | undefined;
  return {
    onChange: (l: (change: LeaseChange, nodeId: string) => void) => { listener = l; },
    tell: (change: LeaseChange, nodeId: string) => listener!(change, nodeId),
  };
}

const settled = async (calls: string[], count: number) => {
  for (let i = 0; i < 100 && calls.length < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('holder work', () => {
  it('settles a gained Node\'s backups, then its workflows, and nothing for a Node lost', async () => {
    const { calls, left } = leftWork();
    const m = membership();
    new HolderWork(left, silentLogger).follow(m);
    m.tell('lost', 'n1');
    m.tell('gained', 'n2');
    await settled(calls, 2);
    expect(calls).to.deep.equal(['backups n2', 'workflows n2']);
  });

  it('settles one Node once at a time: a Node gained again waits for the settling under way', async () => {
    const { calls, gates, left } = leftWork();
    let open!: () => void;
    gates.set('n1', new Promise((resolve) => (open = resolve)));
    const work = new HolderWork(left, silentLogger);
    const first = work.settleNode('n1');
    const second = work.settleNode('n1');
    await settled(calls, 1);
    expect(calls).to.deep.equal(['backups n1']);
    open();
    await Promise.all([first, second]);
    expect(calls).to.deep.equal(['backups n1', 'workflows n1', 'backups n1', 'workflows n1']);
  });

  it('settles the backups never placed on a Node before the backup schedules start', async () => {
    const { calls, left } = leftWork();
    const job = new HolderWork(left, silentLogger).withUnplaced({
      start: () => { calls.push('job start'); return Promise.resolve(); },
      stop: () => { calls.push('job stop'); return Promise.resolve(); },
    });
    await job.start();
    await job.stop();
    expect(calls).to.deep.equal(['backups ', 'job start', 'job stop']);
  });
});
