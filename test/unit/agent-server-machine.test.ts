import { expect } from 'chai';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { agentServerMachine, runtimeStateOf, type AgentServerState, type ProbeResult } from '../../src/agent/reconciler/server-machine.js';

const desired = (over: Partial<ServerTarget> = {}): ServerTarget => ({
  serverId: 's1', generation: 1, state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 1000, memoryBytes: 1 << 30 }, gamePort: 25565, inNetwork: false,
  restartPolicy: { maxRestarts: 2, windowSeconds: 60 }, acknowledgedConditions: [], restartNonce: 0, ...over,
});

function harness(probe: ProbeResult = { installed: false, running: false }) {
  const calls: string[] = [];
  const effect = (name: string) => fromPromise<void, { desired: ServerTarget }>(async () => {
    calls.push(name);
  });
  const machine = agentServerMachine.provide({
    actors: {
      probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => probe),
      install: effect('install'), start: effect('start'), stop: effect('stop'), remove: effect('remove'),
    },
  });
  return { calls, machine };
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
    actor.send({ type: 'EXITED', code: 1, signal: null, at: next() });
    const s = await waitFor(actor, inState('stopped'));
    expect(runtimeStateOf('stopped', s.context)).to.equal('CRASHED');
    expect(calls).to.deep.equal(['start']);
  });

  it('restarts with backoff, then raises CRASH_LOOP and holds until acknowledged', async () => {
    const { calls, machine } = harness({ installed: true, running: false });
    const actor = start(machine, desired({ state: 'RUNNING' }));
    for (let crash = 1; crash <= 3; crash++) {
      await waitFor(actor, inState('starting'));
      actor.send({ type: 'EXITED', code: 1, signal: null, at: next() });
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

  it('adopts a live process found at start as RUNNING without starting it again', async () => {
    const { calls, machine } = harness({ installed: true, running: true, applied: { software: desired().software, resources: desired().resources, gamePort: 25565, restartNonce: 0, inNetwork: false } });
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
});
