import { expect } from 'chai';
import { createActor, waitFor } from 'xstate';
import { runtimeStateOf } from '../../src/agent/reconciler/runtime-state-of.js';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { bestFit } from '../../src/controller/domain/placement.js';
import { machineTarget, stubbedServerMachine } from '../support/server-machine-rig.js';

const GiB = 2 ** 30;

describe('RUNTIME_MISSING: the server machine', () => {
  const target = (over: Partial<ServerTarget> = {}) =>
    machineTarget({ software: { template: 'paper', version: '1.21.4' }, restartPolicy: { maxRestarts: 3, windowSeconds: 60 }, ...over });
  const refusal = { id: 's1:runtime-missing', reason: 'RUNTIME_MISSING', message: 'The server needs Java 21 or newer; this Node has Java 17.', since: '2030-01-01T00:00:00.000Z' };
  const { machine, calls } = stubbedServerMachine();
  beforeEach(() => (calls.length = 0));

  it('a server wanted RUNNING stays STOPPED with the condition, no crash and no restart, while each desired state still refuses', async () => {
    const actor = createActor(machine, { input: { desired: target(), backoffBaseMs: 1, runtimeRefusal: refusal } }).start();
    const s = await waitFor(actor, (snap) => snap.value === 'stopped');
    expect(runtimeStateOf('stopped', s.context)).to.equal('STOPPED');
    expect(s.context.conditions).to.deep.equal([refusal]);
    actor.send({ type: 'DESIRED', desired: target({ generation: 2 }), at: Date.now(), runtimeRefusal: refusal });
    const after = actor.getSnapshot();
    expect(after.value).to.equal('stopped');
    expect(after.context.conditions).to.deep.equal([refusal]);
    expect(after.context.crashes).to.deep.equal([]);
    expect(after.context.lastCrash).to.equal(undefined);
    expect(calls).to.deep.equal([]);
    actor.stop();
  });

  it('a desired state without the refusal (a Java fits now, or the software changed) clears the condition and starts', async () => {
    const actor = createActor(machine, { input: { desired: target(), backoffBaseMs: 1, runtimeRefusal: refusal } }).start();
    await waitFor(actor, (snap) => snap.value === 'stopped');
    actor.send({ type: 'DESIRED', desired: target({ generation: 2 }), at: Date.now() });
    const s = await waitFor(actor, (snap) => snap.value === 'starting');
    expect(s.context.conditions).to.deep.equal([]);
    expect(calls).to.deep.equal(['start']);
    actor.stop();
  });

  it('a running server whose new software needs a Java the Node lacks stops and stays stopped', async () => {
    const actor = createActor(machine, { input: { desired: target(), backoffBaseMs: 1 } }).start();
    await waitFor(actor, (snap) => snap.value === 'starting');
    actor.send({ type: 'READY_LINE' });
    actor.send({ type: 'DESIRED', desired: target({ generation: 2, software: { template: 'paper', version: '1.21.10' } }), at: Date.now(), runtimeRefusal: refusal });
    const s = await waitFor(actor, (snap) => snap.value === 'stopped');
    expect(s.context.conditions).to.deep.equal([refusal]);
    expect(calls).to.deep.equal(['start', 'stop']);
    actor.stop();
  });
});

describe('placement: the Java a version needs', () => {
  const node = (nodeId: string, javaMajors: number[], reservedMem = 0, acceptsPlacements = true) => ({
    nodeId, acceptsPlacements, javaMajors, allocatable: { cpuMillis: 8000, memoryBytes: 16 * GiB }, reserved: { cpuMillis: (reservedMem / GiB) * 500, memoryBytes: reservedMem },
  });
  const request = { cpuMillis: 1000, memoryBytes: 2 * GiB };

  it('prefers a Node that has a Java of at least the minimum over a better fit without one', () => {
    const nodes = [node('a', [17], 12 * GiB), node('b', [17, 21]), node('c', [25], 4 * GiB)];
    expect(bestFit(nodes, request)).to.equal('a');
    expect(bestFit(nodes, request, 21)).to.equal('c');
    expect(bestFit(nodes, request, 25)).to.equal('c');
  });

  it('falls back to any Node when none that can take the server has the Java', () => {
    const nodes = [node('a', [17], 12 * GiB), node('b', []), node('c', [25], 15 * GiB), node('d', [25], 0, false)];
    expect(bestFit(nodes, request, 25)).to.equal('a');
    expect(bestFit([node('a', [8])], request, 99)).to.equal('a');
  });
});
