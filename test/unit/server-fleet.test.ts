import { expect } from 'chai';
import { machineState, persistedSnapshotOf, ServerFleet } from '../../src/controller/actors/server-fleet.js';
import type { ServerEvent } from '../../src/controller/actors/server-machine.js';
import { defaultRestartPolicy, emptyObserved, type ServerDesired } from '../../src/controller/domain/server-spec.js';
import type { ServerDoc } from '../../src/controller/store/records.js';

const at = '2026-01-01T00:00:00.000Z';
const desired: ServerDesired = {
  state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 1000, memoryBytes: 1 << 30 },
  inNetwork: false, restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
};

/** A record as ServerService writes it after these events, and the actor that wrote it. */
function recordAfter(...events: ServerEvent[]) {
  const fleet = new ServerFleet();
  const actor = fleet.create('s1', desired, at);
  for (const event of events) actor.send(event);
  const { phase, context } = machineState(actor);
  const doc: ServerDoc = {
    _id: 's1', name: 's1', teamId: 't', nodeId: 'n', kind: 'GAME_SERVER', phase, generation: context.generation, desired: context.desired,
    ...(context.workflow ? { workflow: context.workflow } : {}),
    ...(context.failure ? { failure: context.failure } : {}),
    ...(context.failureReason ? { failureReason: context.failureReason } : {}),
    ...(context.workflowFailure ? { workflowFailure: context.workflowFailure } : {}),
    observed: emptyObserved(), createdAt: at, updatedAt: at,
  };
  return { actor, doc: JSON.parse(JSON.stringify(doc)) as ServerDoc };
}

describe('server actors rebuilt from their records', () => {
  const histories: [string, ServerEvent[]][] = [
    ['PROVISIONING', []],
    ['READY, started', [{ type: 'INSTALLED', at }, { type: 'START', at }]],
    ['MIGRATING', [{ type: 'INSTALLED', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'MIGRATE', step: 'copying', facts: { targetNodeId: 'n2' } }]],
    ['READY after a rollback', [{ type: 'INSTALLED', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'RESTORE', step: 'x' }, { type: 'WORKFLOW_ABORTED', at, reason: 'RESTORE_FAILED', message: 'no' }]],
    ['FAILED', [{ type: 'INSTALL_FAILED', at, message: 'no disk' }]],
    ['DELETING', [{ type: 'INSTALLED', at }, { type: 'DELETE', at }]],
  ];

  for (const [name, events] of histories) {
    it(`${name}: the record's fields are xstate's persisted snapshot`, () => {
      const { actor, doc } = recordAfter(...events);
      expect(persistedSnapshotOf(doc)).to.deep.equal(JSON.parse(JSON.stringify(actor.getPersistedSnapshot())));
    });
  }

  it('a restored actor goes on where the record left it', () => {
    const { doc } = recordAfter({ type: 'INSTALLED', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'MIGRATE', step: 'copying' });
    const actor = new ServerFleet().restore(doc);
    expect(machineState(actor).phase).to.equal('MIGRATING');
    expect(actor.getSnapshot().can({ type: 'START', at })).to.equal(false);
    actor.send({ type: 'WORKFLOW_DONE', at });
    actor.send({ type: 'STOP', at });
    expect(machineState(actor)).to.deep.include({ phase: 'READY' });
    expect(machineState(actor).context.generation).to.equal(doc.generation + 1);
  });
});
