import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor, type EventObject } from 'xstate';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { agentServerMachine, type ProbeResult } from '../../src/agent/reconciler/server-machine.js';
import { runtimeStateOf, type AgentServerState } from '../../src/agent/reconciler/runtime-state-of.js';

const desired = (over: Partial<ServerTarget> = {}): ServerTarget => ({
  serverId: 's1', generation: 1, state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 1000, memoryBytes: 1 << 30 }, gamePort: 41565, inNetwork: false,
  restartPolicy: { maxRestarts: 2, windowSeconds: 60 }, acknowledgedConditions: [], restartNonce: 0, wakeNonce: 0, ...over,
});

/** A promise settled by the test: an effect that takes as long as the test wants. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The machine with recorded effects. `held` effects wait for the test to settle them (one
 * deferred per call, in order), so a test can send events while a launch or a stop is under way.
 */
function harness(probe: ProbeResult = { installed: false, running: false }, held: string[] = []) {
  const calls: string[] = [];
  const pending: Partial<Record<string, ReturnType<typeof deferred>[]>> = {};
  const watching = { count: 0 };
  const effect = (name: string) => fromPromise<void, { desired: ServerTarget }>(async () => {
    calls.push(name);
    if (!held.includes(name)) return;
    const d = deferred();
    (pending[name] ??= []).push(d);
    await d.promise;
  });
  const machine = agentServerMachine.provide({
    actors: {
      probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => probe),
      install: effect('install'), start: effect('start'), stop: effect('stop'), remove: effect('remove'),
      watchReady: fromCallback<EventObject, { desired: ServerTarget }>(() => {
        watching.count += 1;
        return () => (watching.count -= 1);
      }),
    },
  });
  /** The oldest unsettled call of `name`, once it has been made. */
  const settle = async (name: string) => {
    const deadline = Date.now() + 3000;
    while (!pending[name]?.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const d = pending[name]?.shift();
    if (!d) throw new Error(`no ${name} under way`);
    return d;
  };
  return { calls, machine, settle, watching };
}

const start = (machine: ReturnType<typeof harness>['machine'], d: ServerTarget) =>
  createActor(machine, { input: { desired: d, backoffBaseMs: 5 } }).start();

const inState = (state: AgentServerState) => (s: { value: unknown }) => s.value === state;
let at = 1_000_000;
const next = () => (at += 1000);

describe('agent server machine', () => {
  it('installs a new server, then rests STOPPED when stopped is desired', async () => {
    const { calls, machine } = harness();
    const actor = start(machine, desired());
    const s = await waitFor(actor, inState('stopped'));
    expect(calls).to.deep.equal(['install']);
    expect(runtimeStateOf('stopped', s.context)).to.equal('STOPPED');
  });

  it('leaves a failed install once its files were replaced and installed by a committed stage', async () => {
    const { machine } = harness();
    const failing = machine.provide({ actors: { install: fromPromise<void, { desired: ServerTarget }>(async () => { throw new Error('download failed'); }) } });
    const actor = start(failing, desired());
    await waitFor(actor, inState('installFailed'));
    actor.send({ type: 'FILES_REPLACED' });
    const s = await waitFor(actor, inState('stopped'));
    expect(s.context.installError).to.equal(undefined);
  });

  it('installs again when a failed install gets a new generation (a retry), not on the same one', async () => {
    let attempts = 0;
    const { machine } = harness();
    const flaky = machine.provide({ actors: { install: fromPromise<void, { desired: ServerTarget }>(async () => { if (++attempts === 1) throw new Error('download failed'); }) } });
    const actor = start(flaky, desired());
    await waitFor(actor, inState('installFailed'));
    actor.send({ type: 'DESIRED', desired: desired(), at: next() });
    expect(actor.getSnapshot().value).to.equal('installFailed');
    actor.send({ type: 'DESIRED', desired: desired({ generation: 2 }), at: next() });
    await waitFor(actor, inState('stopped'));
    expect(attempts).to.equal(2);
  });

  it('starts on RUNNING, is RUNNING once the ready line appears, and stops on STOPPED', async () => {
    const { calls, machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired());
    await waitFor(actor, inState('stopped'));
    actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 2 }), at: next() });
    await waitFor(actor, inState('starting'));
    expect(actor.getSnapshot().context.observedGeneration).to.equal(2);
    actor.send({ type: 'READY_LINE' });
    expect(actor.getSnapshot().value).to.equal('running');
    actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 3 }), at: next() });
    await waitFor(actor, inState('stopped'));
    expect(calls).to.deep.equal(['start', 'stop']);
  });

  it('restarts a running server when its resources change, but not for a network change', async () => {
    const { calls, machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired({ state: 'RUNNING' }));
    await waitFor(actor, inState('starting'));
    actor.send({ type: 'READY_LINE' });
    actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 2, inNetwork: true }), at: next() });
    expect(actor.getSnapshot().value).to.equal('running');
    actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 3, inNetwork: true, resources: { cpuMillis: 2000, memoryBytes: 1 << 30 } }), at: next() });
    await waitFor(actor, inState('starting'));
    expect(calls).to.deep.equal(['start', 'stop', 'start']);
    expect(actor.getSnapshot().context.applied?.resources.cpuMillis).to.equal(2000);
  });

  it('with maxRestarts 0, a crash leaves the server CRASHED and stopped', async () => {
    const { calls, machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired({ state: 'RUNNING', restartPolicy: { maxRestarts: 0, windowSeconds: 60 } }));
    await waitFor(actor, inState('starting'));
    actor.send({ type: 'READY_LINE' });
    actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
    const s = await waitFor(actor, inState('stopped'));
    expect(runtimeStateOf('stopped', s.context)).to.equal('CRASHED');
    expect(calls).to.deep.equal(['start']);
  });

  it('a launch that fails is a crash whose one line says why the Agent could not start the game', async () => {
    const { machine } = harness({ installed: true, running: false });
    const failing = machine.provide({ actors: { start: fromPromise<void, { desired: ServerTarget }>(async () => { throw new Error('the shim did not answer within 10000 ms'); }) } });
    const actor = start(failing, desired({ state: 'RUNNING', restartPolicy: { maxRestarts: 0, windowSeconds: 60 } }));
    const s = await waitFor(actor, inState('stopped'));
    expect(s.context.crashes).to.have.length(1);
    expect(s.context.lastCrash).to.include({ code: null, signal: null });
    expect(s.context.lastCrash?.lastLines.map((l) => l.text)).to.deep.equal(['The Agent could not start the game: the shim did not answer within 10000 ms']);
  });

  it('restarts with backoff, then raises CRASH_LOOP and holds until acknowledged', async () => {
    const { calls, machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired({ state: 'RUNNING' }));
    for (let crash = 1; crash <= 3; crash++) {
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
    }
    const looped = await waitFor(actor, inState('crashLoop'));
    expect(looped.context.conditions.map((c) => c.reason)).to.deep.equal(['CRASH_LOOP']);
    expect(calls.filter((c) => c === 'start')).to.have.length(3);
    actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 2 }), at: next() });
    expect(actor.getSnapshot().value).to.equal('crashLoop');
    actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 3, acknowledgedConditions: ['s1:crash-loop'] }), at: next() });
    const restarted = await waitFor(actor, inState('starting'));
    expect(restarted.context.conditions).to.deep.equal([]);
  });

  it('counts the automatic restarts with the last crash, from the first crash after a start the Controller asked for', async () => {
    const { machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired({ state: 'RUNNING' }));
    const crash = async () => {
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
      return actor.getSnapshot().context.restarts;
    };
    expect(await crash(), 'the first crash: nothing restarted yet').to.equal(0);
    expect(await crash()).to.equal(1);
    expect((await waitFor(actor, inState('starting'))).context.restarts).to.equal(2);
    // A restart the operator asked for keeps the count shown until its game crashes.
    actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 2, restartNonce: 1 }), at: next() });
    await waitFor(actor, (s) => s.value === 'starting' && s.context.applied?.restartNonce === 1);
    expect(actor.getSnapshot().context.restarts).to.equal(2);
    actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
    expect(actor.getSnapshot().context.restarts).to.equal(0);
    actor.stop();
  });

  it('adopts a live process found at start as RUNNING without starting it again', async () => {
    const { calls, machine } = harness({ installed: true, running: true, applied: { software: desired().software, resources: desired().resources, gamePort: 41565, restartNonce: 0, inNetwork: false } });
    const actor = start(machine, desired({ state: 'RUNNING' }));
    await waitFor(actor, inState('running'));
    expect(calls).to.deep.equal([]);
  });

  it('removes a deleted server and finishes', async () => {
    const { calls, machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired());
    await waitFor(actor, inState('stopped'));
    actor.send({ type: 'DESIRED', desired: desired({ state: 'DELETED', generation: 2 }), at: next() });
    await waitFor(actor, (s) => s.status === 'done');
    expect(calls).to.deep.equal(['remove']);
  });

  describe('effects are never abandoned: power actions at any rate leave one game or none', () => {
    const running = desired({ state: 'RUNNING', generation: 2 });

    it('a stop during a launch waits for the launch, then stops the game it started', async () => {
      const { calls, machine, settle } = harness({ installed: true, running: false }, ['start']);
      const actor = start(machine, running);
      await waitFor(actor, inState('launching'));
      actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 3 }), at: next() });
      expect(actor.getSnapshot().value, 'the launch is not cut short').to.equal('launching');
      expect(calls).to.deep.equal(['start']);
      (await settle('start')).resolve();
      const s = await waitFor(actor, inState('stopped'));
      expect(calls).to.deep.equal(['start', 'stop']);
      expect(runtimeStateOf('stopped', s.context)).to.equal('STOPPED');
      expect(s.context.observedGeneration).to.equal(3);
    });

    it('five restarts during a launch end in one stop and one new launch with the newest spec', async () => {
      const { calls, machine, settle } = harness({ installed: true, running: false }, ['start']);
      const actor = start(machine, running);
      await waitFor(actor, inState('launching'));
      for (let nonce = 1; nonce <= 5; nonce++) actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 2 + nonce, restartNonce: nonce }), at: next() });
      (await settle('start')).resolve();
      await waitFor(actor, (s) => s.value === 'launching' && calls.length === 3);
      expect(calls).to.deep.equal(['start', 'stop', 'start']);
      expect(actor.getSnapshot().context.applied?.restartNonce).to.equal(5);
      (await settle('start')).resolve();
      const s = await waitFor(actor, inState('starting'));
      expect(s.context.crashes).to.deep.equal([]);
    });

    it('a start that arrives during a stop waits for the stop, then launches once', async () => {
      const { calls, machine, settle } = harness({ installed: true, running: false }, ['stop']);
      const actor = start(machine, running);
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'READY_LINE' });
      actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 3 }), at: next() });
      await waitFor(actor, inState('stopping'));
      actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 4 }), at: next() });
      actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 5 }), at: next() });
      actor.send({ type: 'DESIRED', desired: desired({ state: 'RUNNING', generation: 6 }), at: next() });
      expect(actor.getSnapshot().value).to.equal('stopping');
      (await settle('stop')).resolve();
      await waitFor(actor, inState('starting'));
      expect(calls).to.deep.equal(['start', 'stop', 'start']);
    });

    it('a game that exits during its launch is a crash once the launch settled, never a second launch beside it', async () => {
      const { calls, machine, settle } = harness({ installed: true, running: false }, ['start']);
      const actor = start(machine, running);
      await waitFor(actor, inState('launching'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
      expect(actor.getSnapshot().value).to.equal('launching');
      (await settle('start')).resolve();
      const s = await waitFor(actor, inState('backoff'));
      expect(s.context.crashes).to.have.length(1);
      expect(calls).to.deep.equal(['start']);
    });

    it('a failed stop is tried again until it succeeds; the server is never called stopped before', async () => {
      const { calls, machine, settle } = harness({ installed: true, running: false }, ['stop']);
      const actor = start(machine, running);
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 3 }), at: next() });
      (await settle('stop')).reject(new Error('the shim did not answer'));
      const failed = await waitFor(actor, inState('stopFailed'));
      expect(runtimeStateOf('stopFailed', failed.context)).to.equal('STOPPING');
      (await settle('stop')).resolve();
      await waitFor(actor, inState('stopped'));
      expect(calls).to.deep.equal(['start', 'stop', 'stop']);
    });

    it('the ready watch runs only while the machine waits for the ready line', async () => {
      const { machine, watching } = harness({ installed: true, running: false });
      const actor = start(machine, running);
      await waitFor(actor, inState('starting'));
      expect(watching.count).to.equal(1);
      actor.send({ type: 'READY_LINE' });
      expect(watching.count).to.equal(0);
    });
  });

  describe('crashes explained', () => {
    const lines = Array.from({ length: 30 }, (_, i) => ({ text: `line ${i}`, at: 1_700_000_000_000 + i }));

    it('keeps the exit and the last 20 lines of a crash; the CRASH_LOOP message names how it ended', async () => {
      const { machine } = harness({ installed: true, running: false });
      const actor = start(machine, desired({ state: 'RUNNING', restartPolicy: { maxRestarts: 1, windowSeconds: 60 } }));
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: lines });
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: null, signal: 'SIGSEGV', at: next(), lastLines: lines.slice(0, 3) });
      const s = await waitFor(actor, inState('crashLoop'));
      expect(s.context.lastCrash).to.deep.include({ code: null, signal: 'SIGSEGV', lastLines: lines.slice(0, 3) });
      expect(s.context.conditions[0].message).to.equal('Crashed 2 times within 60 s; automatic restarts stopped until acknowledged. The last one ended with signal SIGSEGV.');
    });

    it('keeps at most 20 lines, the newest; a clean exit leaves the last crash as it was', async () => {
      const { machine } = harness({ installed: true, running: false });
      const actor = start(machine, desired({ state: 'RUNNING' }));
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 3, signal: null, at: next(), lastLines: lines });
      await waitFor(actor, inState('starting'));
      expect(actor.getSnapshot().context.lastCrash).to.deep.include({ code: 3, signal: null, lastLines: lines.slice(10) });
      actor.send({ type: 'EXITED', code: 0, signal: null, at: next(), lastLines: [] });
      expect(actor.getSnapshot().context.lastCrash?.code).to.equal(3);
    });

    it('cuts each kept line at 1,000 characters, so a status stays small', async () => {
      const { machine } = harness({ installed: true, running: false });
      const actor = start(machine, desired({ state: 'RUNNING' }));
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [{ text: 'x'.repeat(5000), at: 1 }, { text: 'short', at: 2 }] });
      expect(actor.getSnapshot().context.lastCrash?.lastLines).to.deep.equal([{ text: `${'x'.repeat(1000)}…`, at: 1 }, { text: 'short', at: 2 }]);
    });
  });

  describe('the runtime state it reports', () => {
    it('a crash-looped server that is asked to stop reports STOPPED, the condition kept', async () => {
      const { machine } = harness({ installed: true, running: false });
      const actor = start(machine, desired({ state: 'RUNNING', restartPolicy: { maxRestarts: 0, windowSeconds: 60 } }));
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
      const crashed = await waitFor(actor, inState('stopped'));
      expect(runtimeStateOf('stopped', crashed.context)).to.equal('CRASHED');
      actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 2 }), at: next() });
      const stopped = await waitFor(actor, (s) => s.value === 'stopped' && s.context.observedGeneration === 2);
      expect(runtimeStateOf('stopped', stopped.context)).to.equal('STOPPED');
    });

    it('a server in CRASH_LOOP that is asked to stop reports STOPPED and keeps CRASH_LOOP until acknowledged', async () => {
      const { machine } = harness({ installed: true, running: false });
      const actor = start(machine, desired({ state: 'RUNNING', restartPolicy: { maxRestarts: 1, windowSeconds: 60 } }));
      for (let crash = 1; crash <= 2; crash++) {
        await waitFor(actor, inState('starting'));
        actor.send({ type: 'EXITED', code: 1, signal: null, at: next(), lastLines: [] });
      }
      const looped = await waitFor(actor, inState('crashLoop'));
      expect(runtimeStateOf('crashLoop', looped.context)).to.equal('CRASHED');
      actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 2 }), at: next() });
      const s = actor.getSnapshot();
      expect(s.value).to.equal('crashLoop');
      expect(runtimeStateOf('crashLoop', s.context)).to.equal('STOPPED');
      expect(s.context.conditions.map((c) => c.reason)).to.deep.equal(['CRASH_LOOP']);
    });
  });
});

describe('agent server machine: no desired change is dropped', () => {
  it('a delete that arrives while the server is being probed removes it', async () => {
    const { calls, machine } = harness();
    const held = machine.provide({
      actors: { probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => { await probing.promise; return { installed: false, running: false }; }) },
    });
    const probing = deferred();
    const actor = start(held, desired());
    expect(actor.getSnapshot().value).to.equal('probing');
    actor.send({ type: 'DESIRED', desired: desired({ state: 'DELETED', generation: 2 }), at: next() });
    probing.resolve();
    const s = await waitFor(actor, inState('removed'));
    expect(s.context.observedGeneration).to.equal(2);
    expect(calls).to.deep.equal(['remove']);
  });

  it('a stop that arrives while a running game is being adopted stops it', async () => {
    const probing = deferred();
    const { calls, machine } = harness();
    const held = machine.provide({
      actors: { probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => { await probing.promise; return { installed: true, running: true, applied: undefined }; }) },
    });
    const actor = start(held, desired({ state: 'RUNNING' }));
    actor.send({ type: 'DESIRED', desired: desired({ state: 'STOPPED', generation: 2 }), at: next() });
    probing.resolve();
    await waitFor(actor, inState('stopped'));
    expect(calls).to.deep.equal(['stop']);
  });
});
