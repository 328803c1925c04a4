import { expect } from 'chai';
import { createActor, SimulatedClock, type Actor } from 'xstate';
import {
  acceptsPlacementsOf, adminChange, adminStateOf, conditionsOf, connectionStateOf, defaultNodeTimings, nodeMachine, rehydratedNode, type NodeEvent, type NodeInput,
} from '../../src/controller/actors/node-machine.js';

const base = Date.parse('2030-01-01T00:00:00.000Z');

describe('node machine', () => {
  let clock: SimulatedClock;
  let actor: Actor<typeof nodeMachine>;
  const at = () => new Date(base + clock.now()).toISOString();
  const iso = (ms: number) => new Date(base + ms).toISOString();

  function start(input: Partial<NodeInput> = {}) {
    clock = new SimulatedClock();
    actor = createActor(nodeMachine, {
      clock,
      input: { adminState: 'ENABLED', enrolled: false, timings: defaultNodeTimings, at: iso(0), ...input },
    });
    actor.start();
  }
  /** SimulatedClock starts a timer set while flushing at the jumped-to time, so move in 1 ms steps as real time does. */
  const advance = (ms: number) => {
    for (let i = 0; i < ms; i++) clock.increment(1);
  };
  const send = (event: NodeEvent) => actor.send(event);
  const heartbeat = (conditions: { id: string; reason: string; message: string; since: string }[] = []) =>
    send({ type: 'HEARTBEAT', at: at(), conditions });
  const state = () => {
    const s = actor.getSnapshot();
    return { admin: adminStateOf(s), connection: connectionStateOf(s), accepts: acceptsPlacementsOf(s), conditions: conditionsOf(s) };
  };

  afterEach(() => actor.stop());

  it('starts ENABLED and AWAITING_ENROLLMENT, not accepting placements', () => {
    start();
    expect(state()).to.deep.include({ admin: 'ENABLED', connection: 'AWAITING_ENROLLMENT', accepts: false });
    expect(state().conditions).to.deep.equal([]);
  });

  it('enrolled but not yet connected is UNREACHABLE', () => {
    start();
    send({ type: 'ENROLLED', at: at() });
    expect(state().connection).to.equal('UNREACHABLE');
    expect(state().conditions.map((c) => c.reason)).to.deep.equal(['NODE_UNREACHABLE']);
  });

  it('connects to HEALTHY and then accepts placements', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    expect(state()).to.deep.include({ connection: 'HEALTHY', accepts: true });
  });

  it('takes the hello as the Agent\'s first report: the last heartbeat is the connect time until a heartbeat comes', () => {
    start();
    advance(3_000);
    send({ type: 'CONNECTED', at: at() });
    expect(actor.getSnapshot().context.lastHeartbeatAt).to.equal(iso(3_000));
  });

  it('heartbeats keep it HEALTHY and move the last heartbeat', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    for (let i = 0; i < 5; i++) {
      advance(14_000);
      heartbeat();
      expect(state().connection).to.equal('HEALTHY');
    }
    expect(actor.getSnapshot().context.lastHeartbeatAt).to.equal(iso(70_000));
  });

  it('is DEGRADED when the fleet says STALE, with a CONTROLLER condition dated 15 s after the last sign of life', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    advance(5_000);
    heartbeat();
    advance(60_000);
    expect(state().connection).to.equal('HEALTHY');
    send({ type: 'STALE', lastSeenAt: iso(5_000) });
    expect(state()).to.deep.include({ connection: 'DEGRADED', accepts: false });
    expect(state().conditions).to.deep.equal([{
      id: 'controller.heartbeat-missed', source: 'CONTROLLER', reason: 'HEARTBEAT_MISSED',
      message: 'No heartbeat from the Agent for 15 s.', since: iso(20_000),
    }]);
  });

  it('is UNREACHABLE 30 s after turning stale (45 s after the last sign of life), and a heartbeat in between heals it', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    advance(15_000);
    send({ type: 'STALE', lastSeenAt: iso(0) });
    expect(state().connection).to.equal('DEGRADED');
    advance(5_000);
    heartbeat();
    expect(state().connection).to.equal('HEALTHY');
    expect(state().conditions).to.deep.equal([]);
    advance(15_000);
    send({ type: 'STALE', lastSeenAt: iso(20_000) });
    advance(29_999);
    expect(state().connection).to.equal('DEGRADED');
    advance(1);
    expect(state().connection).to.equal('UNREACHABLE');
    expect(state().conditions).to.deep.equal([{
      id: 'controller.unreachable', source: 'CONTROLLER', reason: 'NODE_UNREACHABLE',
      message: 'The Agent is not connected: its stream closed or it stopped sending heartbeats.', since: iso(65_000),
    }]);
  });

  it('is DEGRADED while the Agent reports pressure, keeping the condition\'s since, and HEALTHY once it clears', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    const pressure = { id: 'disk-pressure', reason: 'DISK_PRESSURE', message: 'Disk 97% full', since: iso(1_000) };
    advance(1_000);
    heartbeat([pressure]);
    expect(state()).to.deep.include({ connection: 'DEGRADED', accepts: false });
    advance(5_000);
    heartbeat([{ ...pressure, message: 'Disk 98% full', since: iso(6_000) }]);
    expect(state().conditions).to.deep.equal([{ id: 'agent.disk-pressure', source: 'AGENT', reason: 'DISK_PRESSURE', message: 'Disk 98% full', since: iso(1_000) }]);
    advance(5_000);
    heartbeat([]);
    expect(state()).to.deep.include({ connection: 'HEALTHY', accepts: true, conditions: [] });
  });

  it('an Agent condition that is not pressure is shown but does not degrade the Node', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    heartbeat([{ id: 'clock-skew', reason: 'CLOCK_SKEW', message: 'Clock 3 s off', since: '' }]);
    expect(state().connection).to.equal('HEALTHY');
    expect(state().conditions[0]).to.deep.include({ id: 'agent.clock-skew', source: 'AGENT', since: iso(0) });
  });

  it('a closed stream is UNREACHABLE at once; a reconnect is HEALTHY and clears the condition', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    heartbeat([{ id: 'disk-pressure', reason: 'DISK_PRESSURE', message: 'full', since: iso(0) }]);
    advance(2_000);
    send({ type: 'DISCONNECTED', at: at() });
    expect(state().connection).to.equal('UNREACHABLE');
    expect(state().conditions).to.have.length(1);
    expect(state().conditions[0]).to.include({ reason: 'NODE_UNREACHABLE', since: iso(2_000) });
    advance(60_000);
    expect(state().connection).to.equal('UNREACHABLE');
    send({ type: 'CONNECTED', at: at() });
    expect(state()).to.deep.include({ connection: 'HEALTHY', conditions: [] });
  });

  it('a replacing connection while online starts fresh', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    advance(16_000);
    send({ type: 'STALE', lastSeenAt: iso(0) });
    expect(state().connection).to.equal('DEGRADED');
    send({ type: 'CONNECTED', at: at() });
    expect(state()).to.deep.include({ connection: 'HEALTHY', conditions: [] });
    advance(40_000);
    expect(state().connection).to.equal('HEALTHY');
  });

  it('a frozen stream that was timed out comes back with its next heartbeat', () => {
    start();
    send({ type: 'CONNECTED', at: at() });
    advance(15_000);
    send({ type: 'STALE', lastSeenAt: iso(0) });
    advance(30_000);
    expect(state().connection).to.equal('UNREACHABLE');
    heartbeat();
    expect(state()).to.deep.include({ connection: 'HEALTHY', conditions: [] });
    send({ type: 'STALE', lastSeenAt: iso(45_000) });
    expect(state().connection).to.equal('DEGRADED');
  });

  it('STALE means nothing unless online and not yet stale', () => {
    start();
    expect(actor.getSnapshot().can({ type: 'STALE', lastSeenAt: iso(0) })).to.equal(false);
    send({ type: 'CONNECTED', at: at() });
    send({ type: 'STALE', lastSeenAt: iso(0) });
    expect(actor.getSnapshot().can({ type: 'STALE', lastSeenAt: iso(0) })).to.equal(false);
  });

  it('heartbeats before any connection are ignored', () => {
    start();
    expect(actor.getSnapshot().can({ type: 'HEARTBEAT', at: at(), conditions: [] })).to.equal(false);
    heartbeat();
    expect(state().connection).to.equal('AWAITING_ENROLLMENT');
  });

  describe('admin state', () => {
    it('DISABLE stops placements on a HEALTHY Node and ENABLE allows them again', () => {
      start();
      send({ type: 'CONNECTED', at: at() });
      send({ type: 'DISABLE' });
      expect(state()).to.deep.include({ admin: 'DISABLED', connection: 'HEALTHY', accepts: false });
      send({ type: 'ENABLE' });
      expect(state()).to.deep.include({ admin: 'ENABLED', accepts: true });
    });

    it('ENABLE on ENABLED and DISABLE on DISABLED change nothing; other moves are allowed', () => {
      start();
      expect(adminChange(actor.getSnapshot(), { type: 'ENABLE' })).to.equal('unchanged');
      send({ type: 'DISABLE' });
      expect(adminChange(actor.getSnapshot(), { type: 'DISABLE' })).to.equal('unchanged');
      expect(adminChange(actor.getSnapshot(), { type: 'ENABLE' })).to.equal('allowed');
      expect(adminChange(actor.getSnapshot(), { type: 'REVOKE', at: at() })).to.equal('allowed');
    });

    it('REVOKE from DISABLED is final', () => {
      start();
      send({ type: 'DISABLE' });
      send({ type: 'REVOKE', at: at() });
      expect(state().admin).to.equal('REVOKED');
    });

    it('REVOKE closes the connection at once and is final: ENABLE, DISABLE and REVOKE are refused', () => {
      start();
      send({ type: 'CONNECTED', at: at() });
      advance(1_000);
      send({ type: 'REVOKE', at: at() });
      expect(state()).to.deep.include({ admin: 'REVOKED', connection: 'UNREACHABLE', accepts: false });
      expect(state().conditions[0]).to.include({ reason: 'NODE_UNREACHABLE', since: iso(1_000) });
      const s = actor.getSnapshot();
      expect(adminChange(s, { type: 'ENABLE' })).to.equal('refused');
      expect(adminChange(s, { type: 'DISABLE' })).to.equal('refused');
      expect(adminChange(s, { type: 'REVOKE', at: at() })).to.equal('refused');
      send({ type: 'ENABLE' });
      expect(state().admin).to.equal('REVOKED');
    });

    it('a REVOKED Node cannot connect or enroll', () => {
      start();
      send({ type: 'REVOKE', at: at() });
      expect(actor.getSnapshot().can({ type: 'CONNECTED', at: at() })).to.equal(false);
      expect(actor.getSnapshot().can({ type: 'ENROLLED', at: at() })).to.equal(false);
      send({ type: 'CONNECTED', at: at() });
      expect(state().connection).to.equal('AWAITING_ENROLLMENT');
    });
  });

  describe('rehydration', () => {
    it('an enrolled Node starts UNREACHABLE with its persisted admin state and condition since', () => {
      start({
        adminState: 'DISABLED', enrolled: true, at: iso(500_000), lastHeartbeatAt: iso(100_000),
        conditions: [{ id: 'controller.unreachable', source: 'CONTROLLER', reason: 'NODE_UNREACHABLE', message: 'x', since: iso(90_000) }],
      });
      expect(state()).to.deep.include({ admin: 'DISABLED', connection: 'UNREACHABLE' });
      expect(state().conditions[0].since).to.equal(iso(90_000));
      expect(actor.getSnapshot().context.lastHeartbeatAt).to.equal(iso(100_000));
      send({ type: 'CONNECTED', at: at() });
      expect(state()).to.deep.include({ connection: 'HEALTHY', accepts: false });
    });

    it('an enrolled Node without a persisted condition is unreachable since its last heartbeat', () => {
      start({ enrolled: true, at: iso(500_000), lastHeartbeatAt: iso(100_000) });
      expect(state().conditions[0]).to.include({ reason: 'NODE_UNREACHABLE', since: iso(100_000) });
    });

    it('a revoked Node stays REVOKED after a restart', () => {
      start({ adminState: 'REVOKED', enrolled: true });
      expect(state()).to.deep.include({ admin: 'REVOKED', connection: 'UNREACHABLE' });
      expect(actor.getSnapshot().can({ type: 'CONNECTED', at: at() })).to.equal(false);
    });

    it('rehydratedNode answers what the started machine holds, for every admin state, enrollment and persisted condition', () => {
      const persisted = [
        undefined,
        [],
        [{ id: 'controller.unreachable', source: 'CONTROLLER' as const, reason: 'NODE_UNREACHABLE', message: 'x', since: iso(90_000) }],
        [
          { id: 'controller.heartbeat-missed', source: 'CONTROLLER' as const, reason: 'HEARTBEAT_MISSED', message: 'y', since: iso(80_000) },
          { id: 'agent.disk', source: 'AGENT' as const, reason: 'DISK_PRESSURE', message: 'z', since: iso(70_000) },
        ],
      ];
      let compared = 0;
      for (const adminState of ['ENABLED', 'DISABLED', 'REVOKED'] as const) {
        for (const enrolled of [false, true]) {
          for (const conditions of persisted) {
            for (const lastHeartbeatAt of [undefined, iso(100_000)]) {
              const input: NodeInput = { adminState, enrolled, timings: defaultNodeTimings, at: iso(500_000), conditions, lastHeartbeatAt };
              start(input);
              const started = state();
              actor.stop();
              expect(rehydratedNode(input), JSON.stringify(input)).to.deep.equal({ adminState: started.admin, connectionState: started.connection, conditions: started.conditions });
              expect(started.accepts).to.equal(false);
              compared++;
            }
          }
        }
      }
      expect(compared).to.equal(48);
    });

    it('durations come from the input', () => {
      start({ timings: { heartbeatIntervalMs: 100, degradedAfterMs: 300, unreachableAfterMs: 900 } });
      send({ type: 'CONNECTED', at: at() });
      advance(300);
      send({ type: 'STALE', lastSeenAt: iso(0) });
      expect(state().connection).to.equal('DEGRADED');
      expect(state().conditions[0]).to.include({ since: iso(300) });
      advance(599);
      expect(state().connection).to.equal('DEGRADED');
      advance(1);
      expect(state().connection).to.equal('UNREACHABLE');
    });
  });
});
