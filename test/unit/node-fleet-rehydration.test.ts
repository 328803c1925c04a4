import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { initialStatus, NodeFleet, type NodeState } from '../../src/controller/actors/fleet.js';
import { defaultNodeTimings } from '../../src/controller/actors/node-machine.js';
import type { NodeDoc } from '../../src/controller/store/records.js';
import { silentLogger } from '../../src/shared/logger.js';

const base = Date.parse('2030-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(base + ms).toISOString();
const facts = { agentVersion: '1', hostname: 'h', os: 'linux', arch: 'x64', runtimeName: 'process', runtimeVersion: 'v20', allocatable: { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 } };
// In the order the machine writes its fields: the change check compares serialized states.
const unreachable = { id: 'controller.unreachable', reason: 'NODE_UNREACHABLE', source: 'CONTROLLER' as const, since: iso(1_000), message: 'The Agent is not connected: its stream closed or it stopped sending heartbeats.' };

/** A Node record as a stopped Controller left it: enrolled, UNREACHABLE since its last heartbeat. */
const record = (id: string, over: Partial<NodeDoc> = {}): NodeDoc => ({
  _id: id, name: id, nameKey: id, address: '', adminState: 'ENABLED', enrolledAt: iso(0),
  status: { ...initialStatus(), connectionState: 'UNREACHABLE', lastHeartbeatAt: iso(1_000) }, conditions: [unreachable],
  createdAt: iso(0), updatedAt: iso(1_000), ...over,
});

describe('Node fleet rehydration (actors made on a Node\'s first event)', () => {
  let timers: SimulatedClock;
  let fleet: NodeFleet;
  let told: NodeState[];

  beforeEach(() => {
    timers = new SimulatedClock();
    fleet = new NodeFleet({ clock: { now: () => new Date(base + 60_000 + timers.now()) }, logger: silentLogger, timings: defaultNodeTimings, timerClock: timers });
    told = [];
    fleet.subscribe((s) => told.push(s));
  });
  afterEach(() => fleet.stop());

  it('a record that holds the rehydrated state is told to nobody; its state is answered as the machine would', () => {
    fleet.add(record('a'));
    fleet.add(record('b', { enrolledAt: undefined, status: initialStatus(), conditions: [] }));
    expect(told).to.deep.equal([]);
    expect(fleet.state('a')).to.deep.include({ adminState: 'ENABLED', connectionState: 'UNREACHABLE', acceptsPlacements: false, conditions: [unreachable] });
    expect(fleet.connectionState('b')).to.equal('AWAITING_ENROLLMENT');
    expect(fleet.states().map((s) => s.nodeId)).to.deep.equal(['a', 'b']);
  });

  it('a record left HEALTHY (a crash) is told UNREACHABLE at once, dated from its last heartbeat, and only once', () => {
    fleet.add(record('a', { status: { ...initialStatus(), connectionState: 'HEALTHY', lastHeartbeatAt: iso(1_000) }, conditions: [] }));
    expect(told.map((s) => s.connectionState)).to.deep.equal(['UNREACHABLE']);
    expect(told[0].conditions).to.deep.equal([unreachable]);
    fleet.connected('a', facts, '10.0.0.1');
    expect(told.map((s) => s.connectionState)).to.deep.equal(['UNREACHABLE', 'HEALTHY']);
  });

  it('the first event makes the actor from the record: a connect, a heartbeat of a frozen stream, an enrollment', () => {
    fleet.add(record('a'));
    fleet.add(record('b'));
    fleet.add(record('c', { enrolledAt: undefined, status: initialStatus(), conditions: [] }));
    fleet.connected('a', facts, '10.0.0.1');
    fleet.heartbeat('b', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    fleet.enrolled('c');
    expect(told.map((s) => `${s.nodeId} ${s.connectionState}`)).to.deep.equal(['a HEALTHY', 'b HEALTHY', 'c UNREACHABLE']);
    expect(fleet.state('a')).to.deep.include({ acceptsPlacements: true, conditions: [] });
  });

  it('administrators\' checks and changes reach a Node that has had no event yet', () => {
    fleet.add(record('a'));
    fleet.add(record('r', { adminState: 'REVOKED' }));
    expect(fleet.checkAdmin('a', { type: 'ENABLE' })).to.equal('unchanged');
    expect(fleet.checkAdmin('a', { type: 'DISABLE' })).to.equal('allowed');
    expect(fleet.checkAdmin('r', { type: 'ENABLE' })).to.equal('refused');
    expect(told).to.deep.equal([]);
    fleet.applyAdmin('a', { type: 'DISABLE' });
    expect(told.map((s) => `${s.nodeId} ${s.adminState}`)).to.deep.equal(['a DISABLED']);
  });

  it('an address set before any event is told; stop answers every Node, with or without an actor', () => {
    fleet.add(record('a'));
    fleet.add(record('b'));
    fleet.setAddress('a', '10.0.0.9');
    expect(told.map((s) => `${s.nodeId} ${s.address}`)).to.deep.equal(['a 10.0.0.9']);
    fleet.disconnected('b');
    expect(fleet.stop().map((s) => `${s.nodeId} ${s.connectionState}`)).to.deep.equal(['a UNREACHABLE', 'b UNREACHABLE']);
  });

  it('a hello tells a Node not loaded here (its lease just lost and taken again, its record being read) from a revoked one', () => {
    fleet.add(record('a'));
    fleet.add(record('r', { adminState: 'REVOKED' }));
    expect(fleet.connected('a', facts, '10.0.0.1')).to.equal('connected');
    expect(fleet.connected('r', facts, '10.0.0.2')).to.equal('revoked');
    fleet.remove('a');
    expect(fleet.connected('a', facts, '10.0.0.1'), 'an Agent told this retries soon; a revoked one is refused').to.equal('not_loaded');
  });
  it('a scrape\'s counts by state and oldest heartbeat agree with every Node\'s whole state, with and without an actor', () => {
    fleet.add(record('a'));
    fleet.add(record('b'));
    fleet.add(record('c', { enrolledAt: undefined, status: initialStatus(), conditions: [] }));
    fleet.add(record('d', { adminState: 'DISABLED' }));
    fleet.connected('a', facts, '10.0.0.1');
    fleet.heartbeat('a', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    const counted = new Map<string, number>();
    for (const s of fleet.states()) counted.set(`${s.adminState}/${s.connectionState}`, (counted.get(`${s.adminState}/${s.connectionState}`) ?? 0) + 1);
    expect(new Map(fleet.countByState().map((c) => [`${c.adminState}/${c.connectionState}`, c.count]))).to.deep.equal(counted);
    expect(counted).to.deep.equal(new Map([['ENABLED/HEALTHY', 1], ['ENABLED/UNREACHABLE', 1], ['ENABLED/AWAITING_ENROLLMENT', 1], ['DISABLED/UNREACHABLE', 1]]));
    // b's last heartbeat is older than a's, but only connected Nodes count.
    expect(fleet.oldestHeartbeatMs((id) => id === 'a')).to.equal(Date.parse(fleet.state('a')!.status.lastHeartbeatAt!));
    expect(fleet.oldestHeartbeatMs(() => true)).to.equal(base + 1_000);
    expect(fleet.oldestHeartbeatMs(() => false)).to.equal(undefined);
  });
});
