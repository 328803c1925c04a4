import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor, type EventObject } from 'xstate';
import type { ProbeResult } from '../../src/agent/reconciler/server-machine.js';
import { runtimeStateOf, type AgentServerState } from '../../src/agent/reconciler/runtime-state-of.js';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { machineTarget, stubbedServerMachine } from '../support/server-machine-rig.js';

const sleepy = (over: Partial<ServerTarget> = {}) => machineTarget({ sleep: { afterEmptySeconds: 10, wakeOnJoin: true }, ...over });

/** The stubbed machine with a sleeper that records when it answers the port and when it lets go. */
function rig(probe: ProbeResult = { installed: true, running: false }) {
  const { machine, calls } = stubbedServerMachine();
  const ports = { open: 0 };
  const provided = machine.provide({
    actors: {
      probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => probe),
      sleep: fromCallback<EventObject, { desired: ServerTarget; since: string }>(() => {
        ports.open += 1;
        return () => (ports.open -= 1);
      }),
    },
  });
  return { machine: provided, calls, ports };
}

const run = (machine: ReturnType<typeof rig>['machine'], desired: ServerTarget) => createActor(machine, { input: { desired, backoffBaseMs: 5 } }).start();
const inState = (state: AgentServerState) => (s: { value: unknown }) => s.value === state;
/** The running game's ready line, so the machine reaches `running`. */
const ready = async (actor: ReturnType<typeof run>) => {
  await waitFor(actor, inState('starting'));
  actor.send({ type: 'READY_LINE' });
  await waitFor(actor, inState('running'));
};

describe('agent server machine: sleeping', () => {
  it('falls asleep at EMPTY when it has sleep: the game stopped, the port answered, reported STOPPED', async () => {
    const { machine, calls, ports } = rig();
    const actor = run(machine, sleepy());
    await ready(actor);
    actor.send({ type: 'EMPTY' });
    const s = await waitFor(actor, inState('asleep'));
    expect(calls).to.deep.equal(['start', 'stop']);
    expect(ports.open).to.equal(1);
    expect(s.context.asleep?.wakeNonce).to.equal(0);
    expect(runtimeStateOf('asleep', s.context)).to.equal('STOPPED');
    expect(runtimeStateOf('fallingAsleep', s.context)).to.equal('STOPPING');
  });

  it('never sleeps without sleep, and ignores EMPTY while it starts', async () => {
    const { machine, calls } = rig();
    const actor = run(machine, machineTarget());
    await waitFor(actor, inState('starting'));
    actor.send({ type: 'EMPTY' });
    actor.send({ type: 'READY_LINE' });
    await waitFor(actor, inState('running'));
    actor.send({ type: 'EMPTY' });
    expect(actor.getSnapshot().value).to.equal('running');
    expect(calls).to.deep.equal(['start']);
  });

  it('wakes at a login: the port let go, the game started, the wake kept with the player', async () => {
    const { machine, calls, ports } = rig();
    const actor = run(machine, sleepy());
    await ready(actor);
    actor.send({ type: 'EMPTY' });
    await waitFor(actor, inState('asleep'));
    actor.send({ type: 'WAKE', player: 'Alex', at: Date.parse('2026-11-29T20:00:00Z') });
    const s = await waitFor(actor, inState('starting'));
    expect(ports.open).to.equal(0);
    expect(calls).to.deep.equal(['start', 'stop', 'start']);
    expect(s.context.lastWake).to.deep.equal({ at: '2026-11-29T20:00:00.000Z', player: 'Alex' });
    expect(s.context.asleep).to.equal(undefined);
  });

  it('a login does not wake it when wakeOnJoin is off; a new wake nonce (a start) does', async () => {
    const { machine } = rig();
    const actor = run(machine, sleepy({ sleep: { afterEmptySeconds: 10, wakeOnJoin: false } }));
    await ready(actor);
    actor.send({ type: 'EMPTY' });
    await waitFor(actor, inState('asleep'));
    actor.send({ type: 'WAKE', player: 'Alex', at: Date.now() });
    expect(actor.getSnapshot().value).to.equal('asleep');
    actor.send({ type: 'DESIRED', desired: sleepy({ sleep: { afterEmptySeconds: 10, wakeOnJoin: false }, wakeNonce: 1, generation: 2 }), at: Date.now() });
    const s = await waitFor(actor, inState('starting'));
    expect(s.context.lastWake?.player).to.equal('');
  });

  it('a stop leaves its sleep without a wake; a delete removes it', async () => {
    const { machine, calls, ports } = rig();
    const actor = run(machine, sleepy());
    await ready(actor);
    actor.send({ type: 'EMPTY' });
    await waitFor(actor, inState('asleep'));
    actor.send({ type: 'DESIRED', desired: sleepy({ state: 'STOPPED', generation: 2 }), at: Date.now() });
    const s = await waitFor(actor, inState('stopped'));
    expect(ports.open).to.equal(0);
    expect(s.context.lastWake).to.equal(undefined);
    actor.send({ type: 'DESIRED', desired: sleepy({ state: 'DELETED', generation: 3 }), at: Date.now() });
    await waitFor(actor, (snap) => snap.status === 'done');
    expect(calls.at(-1)).to.equal('remove');
  });

  it('asleep at the probe (an Agent restart): asleep again, or awake at once when sleep was turned off meanwhile', async () => {
    const marked = { installed: true, running: false, asleep: { since: '2026-11-29T19:00:00.000Z', wakeNonce: 0 } };
    const again = rig(marked);
    const s = await waitFor(run(again.machine, sleepy()), inState('asleep'));
    expect(s.context.asleep?.since).to.equal('2026-11-29T19:00:00.000Z');
    expect(again.calls).to.deep.equal([]);
    const off = rig(marked);
    const woke = await waitFor(run(off.machine, machineTarget()), inState('starting'));
    expect(off.calls).to.deep.equal(['start']);
    expect(woke.context.lastWake?.player).to.equal('');
  });

  it('a game that fails to start on wake follows the crash rules into CRASH_LOOP, and is never asleep there', async () => {
    const { machine } = rig();
    let starts = 0;
    const failing = machine.provide({
      actors: {
        start: fromPromise<void, { desired: ServerTarget }>(async () => {
          starts += 1;
          if (starts > 1) throw new Error('the game would not start');
        }),
      },
    });
    const actor = run(failing, sleepy({ restartPolicy: { maxRestarts: 1, windowSeconds: 60 } }));
    await ready(actor);
    actor.send({ type: 'EMPTY' });
    await waitFor(actor, inState('asleep'));
    actor.send({ type: 'WAKE', player: 'Alex', at: Date.now() });
    const s = await waitFor(actor, inState('crashLoop'));
    expect(starts).to.equal(3);
    expect(s.context.asleep).to.equal(undefined);
    actor.send({ type: 'EMPTY' });
    expect(actor.getSnapshot().value).to.equal('crashLoop');
  });
});
