import { expect } from 'chai';
import { SimulatedClock } from 'xstate';
import { NodeFleet } from '../../src/controller/actors/fleet.js';
import { defaultNodeTimings } from '../../src/controller/actors/node-machine.js';
import { initialStatus } from '../../src/controller/actors/fleet.js';
import { silentLogger } from '../../src/shared/logger.js';

const base = Date.parse('2030-01-01T00:00:00.000Z');
const facts = { agentVersion: '1', hostname: 'h', os: 'linux', arch: 'x64', runtimeName: 'process', runtimeVersion: 'v20', allocatable: { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 } };

describe('Node fleet liveness (one sweep timer for every Node)', () => {
  let timers: SimulatedClock;
  let fleet: NodeFleet;
  const iso = (ms: number) => new Date(base + ms).toISOString();
  /** Real time moves in small steps; SimulatedClock runs a timer set while flushing at the jumped-to time otherwise. */
  const advance = (ms: number) => {
    for (let i = 0; i < ms; i += 10) timers.increment(10);
  };
  const connection = (id: string) => fleet.state(id)!.connectionState;

  beforeEach(() => {
    timers = new SimulatedClock();
    fleet = new NodeFleet({ clock: { now: () => new Date(base + timers.now()) }, logger: silentLogger, timings: defaultNodeTimings, timerClock: timers });
    for (const id of ['a', 'b']) {
      fleet.add({ _id: id, name: id, nameKey: id, address: '', adminState: 'ENABLED', status: initialStatus(), conditions: [], createdAt: iso(0), updatedAt: iso(0) });
      fleet.connected(id, facts, '10.0.0.1');
    }
  });
  afterEach(() => fleet.stop());

  it('a Node heartbeating every 5 s stays HEALTHY; its usage and last heartbeat are shown live without a state change', () => {
    const changes: string[] = [];
    fleet.subscribe((s) => changes.push(`${s.nodeId} ${s.connectionState}`));
    for (let i = 1; i <= 12; i++) {
      advance(5_000);
      fleet.heartbeat('a', { cpuMillis: i, memoryBytes: 2, diskBytes: 3 }, []);
      fleet.heartbeat('b', { cpuMillis: i, memoryBytes: 2, diskBytes: 3 }, []);
    }
    expect(connection('a')).to.equal('HEALTHY');
    expect(fleet.state('a')!.status).to.deep.include({ usage: { cpuMillis: 12, memoryBytes: 2, diskBytes: 3 }, lastHeartbeatAt: iso(60_000) });
    expect(changes).to.deep.equal([]);
  });

  it('DEGRADED no sooner than 15 s and at most one tick (1 s) later, dated 15 s after the last heartbeat; UNREACHABLE 30 s after that', () => {
    advance(5_000);
    fleet.heartbeat('a', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    fleet.heartbeat('b', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    advance(14_990);
    expect(connection('a')).to.equal('HEALTHY');
    advance(1_010);
    expect(connection('a')).to.equal('DEGRADED');
    expect(fleet.state('a')!.conditions[0]).to.include({ reason: 'HEARTBEAT_MISSED', since: iso(20_000) });
    fleet.heartbeat('b', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    expect(connection('b')).to.equal('HEALTHY');
    advance(30_000);
    expect(connection('a')).to.equal('UNREACHABLE');
    expect(fleet.state('a')!.conditions[0]).to.include({ reason: 'NODE_UNREACHABLE', since: iso(50_000) });
    fleet.heartbeat('a', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    expect(connection('a')).to.equal('HEALTHY');
  });

  it('a heartbeat with conditions still reaches the machine (pressure degrades), and the next quiet one heals', () => {
    fleet.heartbeat('a', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, [{ id: 'disk', reason: 'DISK_PRESSURE', message: 'full', since: iso(0) }]);
    expect(connection('a')).to.equal('DEGRADED');
    advance(5_000);
    fleet.heartbeat('a', { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, []);
    expect(connection('a')).to.equal('HEALTHY');
    expect(fleet.state('a')!.conditions).to.deep.equal([]);
  });

  it('a disconnected or removed Node leaves the sweep', () => {
    fleet.disconnected('a');
    fleet.remove('b');
    advance(60_000);
    expect(connection('a')).to.equal('UNREACHABLE');
    expect(fleet.state('a')!.conditions.map((c) => c.reason)).to.deep.equal(['NODE_UNREACHABLE']);
  });
});
