import { expect } from 'chai';
import { defaultRestartPolicy, emptyObserved } from '../../src/controller/domain/server-spec.js';
import { ReconcileTimer } from '../../src/controller/services/servers/reconcile-timer.js';
import type { ServerDoc } from '../../src/controller/store/records.js';

const doc = (id: string, generation: number, observedGeneration: number, nodeId = 'node-1'): ServerDoc => ({
  _id: id, name: id, teamId: 'team-1', nodeId, kind: 'GAME_SERVER', generation, phase: 'READY', observed: { ...emptyObserved(), observedGeneration },
  desired: {
    state: 'RUNNING', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 1024 }, inNetwork: false,
    restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
  },
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('reconcile timer (cairn_reconcile_duration_seconds)', () => {
  let now: number;
  let timer: ReconcileTimer;
  let observed: number[];

  beforeEach(() => {
    now = 1_000;
    timer = new ReconcileTimer(() => now, 3);
    observed = [];
    timer.onReconciled((seconds) => observed.push(seconds));
  });

  it('times a new generation until its own Node reports it', () => {
    timer.changed({ doc: doc('a', 2, 1), deleted: false });
    now += 2_500;
    timer.reported('node-1', { serverId: 'a', observedGeneration: 1 });
    timer.reported('node-2', { serverId: 'a', observedGeneration: 2 });
    expect(observed).to.deep.equal([]);
    timer.reported('node-1', { serverId: 'a', observedGeneration: 2 });
    expect(observed).to.deep.equal([2.5]);
    timer.reported('node-1', { serverId: 'a', observedGeneration: 2 });
    expect(observed, 'one observation per generation').to.have.length(1);
    expect(timer.timing).to.equal(0);
  });

  it('keeps the first start while later writes carry the same generation, and restarts the clock on a newer one', () => {
    timer.changed({ doc: doc('a', 2, 1), deleted: false });
    now += 1_000;
    timer.changed({ doc: doc('a', 2, 1), deleted: false });
    now += 1_000;
    timer.changed({ doc: doc('a', 3, 1), deleted: false });
    now += 500;
    timer.reported('node-1', { serverId: 'a', observedGeneration: 3 });
    expect(observed).to.deep.equal([0.5]);
  });

  it('follows the server to the Node a migration moves it to', () => {
    timer.changed({ doc: doc('a', 4, 3, 'node-1'), deleted: false });
    timer.changed({ doc: doc('a', 4, 3, 'node-2'), deleted: false });
    timer.reported('node-1', { serverId: 'a', observedGeneration: 4 });
    timer.reported('node-2', { serverId: 'a', observedGeneration: 4 });
    expect(observed).to.have.length(1);
  });

  it('does not time a write whose generation the Agent has already seen', () => {
    timer.changed({ doc: doc('a', 2, 2), deleted: false });
    expect(timer.timing).to.equal(0);
  });

  it('forgets a deleted server', () => {
    timer.changed({ doc: doc('a', 2, 1), deleted: false });
    timer.changed({ doc: doc('a', 3, 1), deleted: true });
    timer.reported('node-1', { serverId: 'a', observedGeneration: 3 });
    expect(observed).to.deep.equal([]);
    expect(timer.timing).to.equal(0);
  });

  it('holds at most its capacity, dropping the longest-waiting server', () => {
    for (const id of ['a', 'b', 'c', 'd']) timer.changed({ doc: doc(id, 2, 1), deleted: false });
    expect(timer.timing).to.equal(3);
    timer.reported('node-1', { serverId: 'a', observedGeneration: 2 });
    expect(observed).to.deep.equal([]);
    for (const id of ['b', 'c', 'd']) timer.reported('node-1', { serverId: id, observedGeneration: 2 });
    expect(observed).to.have.length(3);
  });
});
