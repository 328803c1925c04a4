import { expect } from 'chai';
import { createActor } from 'xstate';
import { serverMachine, type ServerEvent } from '../../src/controller/actors/server-machine.js';
import { defaultRestartPolicy, type ServerDesired } from '../../src/controller/domain/server-spec.js';

const at = '2026-01-01T00:00:00.000Z';
const desired: ServerDesired = {
  state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 1000, memoryBytes: 1 << 30 },
  inNetwork: false, restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
};

function actorIn(...events: ServerEvent[]) {
  const actor = createActor(serverMachine, { input: { desired, at } }).start();
  for (const e of events) actor.send(e);
  return actor;
}

describe('server machine', () => {
  it('starts PROVISIONING at generation 1 with a PROVISION workflow', () => {
    const s = actorIn().getSnapshot();
    expect(s.value).to.equal('PROVISIONING');
    expect(s.context.generation).to.equal(1);
    expect(s.context.workflow?.kind).to.equal('PROVISION');
  });

  it('refuses power actions while PROVISIONING', () => {
    const s = actorIn().getSnapshot();
    for (const type of ['START', 'STOP', 'RESTART', 'UPDATE'] as const) expect(s.can({ type, at }), type).to.equal(false);
  });

  it('becomes READY when the Node reports the software installed, and FAILED when installing fails', () => {
    expect(actorIn({ type: 'INSTALLED', at }).getSnapshot().value).to.equal('READY');
    const failed = actorIn({ type: 'INSTALL_FAILED', at, message: 'checksum mismatch' }).getSnapshot();
    expect(failed.value).to.equal('FAILED');
    expect(failed.context.failure).to.equal('checksum mismatch');
  });

  it('takes a failed install back to PROVISIONING with a new generation on REINSTALL, and refuses it elsewhere', () => {
    const actor = actorIn({ type: 'INSTALL_FAILED', at, message: 'checksum mismatch' });
    actor.send({ type: 'REINSTALL', at });
    const s = actor.getSnapshot();
    expect(s.value).to.equal('PROVISIONING');
    expect(s.context).to.deep.include({ generation: 2, failure: undefined, failureReason: undefined });
    expect(s.context.workflow?.kind).to.equal('PROVISION');
    expect(s.can({ type: 'REINSTALL', at })).to.equal(false);
    expect(actorIn({ type: 'INSTALLED', at }).getSnapshot().can({ type: 'REINSTALL', at })).to.equal(false);
  });

  it('a failed install that the Node installs after all (on an acknowledgement\'s new generation) is READY; a failed workflow is not', () => {
    const failed = actorIn({ type: 'INSTALL_FAILED', at, message: 'checksum mismatch' });
    failed.send({ type: 'ACKNOWLEDGE', at, conditionId: 's:workflow-failed' });
    failed.send({ type: 'INSTALLED', at });
    expect(failed.getSnapshot().value).to.equal('READY');
    const workflow = actorIn({ type: 'INSTALLED', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'MIGRATE', step: 'copy' }, { type: 'WORKFLOW_FAILED', at, message: 'gone' });
    expect(workflow.getSnapshot().value).to.equal('FAILED');
    expect(workflow.getSnapshot().can({ type: 'INSTALLED', at })).to.equal(false);
  });

  it('bumps the generation on every desired-spec change in READY', () => {
    const actor = actorIn({ type: 'INSTALLED', at });
    actor.send({ type: 'START', at });
    expect(actor.getSnapshot().context).to.deep.include({ generation: 2 });
    expect(actor.getSnapshot().context.desired.state).to.equal('RUNNING');
    actor.send({ type: 'RESTART', at });
    expect(actor.getSnapshot().context.generation).to.equal(3);
    expect(actor.getSnapshot().context.desired.restartNonce).to.equal(1);
    actor.send({ type: 'UPDATE', at, resources: { cpuMillis: 2000, memoryBytes: 2 << 30 } });
    expect(actor.getSnapshot().context.desired.resources.cpuMillis).to.equal(2000);
    actor.send({ type: 'STOP', at });
    expect(actor.getSnapshot().context).to.deep.include({ generation: 5 });
    expect(actor.getSnapshot().context.desired.state).to.equal('STOPPED');
  });

  it('takes START on a server already desired RUNNING without a new generation', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'START', at });
    expect(actor.getSnapshot().context.generation).to.equal(2);
    expect(actor.getSnapshot().can({ type: 'START', at }), 'accepted, not phase_busy').to.equal(true);
    actor.send({ type: 'START', at });
    expect(actor.getSnapshot().context).to.deep.include({ generation: 2 });
    actor.send({ type: 'STOP', at });
    actor.send({ type: 'START', at });
    expect(actor.getSnapshot().context).to.deep.include({ generation: 4 });
  });

  it('adds an acknowledgement once; acknowledging again changes nothing', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'ACKNOWLEDGE', at, conditionId: 'c1' });
    expect(actor.getSnapshot().context.desired.acknowledgedConditions).to.deep.equal(['c1']);
    const generation = actor.getSnapshot().context.generation;
    actor.send({ type: 'ACKNOWLEDGE', at, conditionId: 'c1' });
    expect(actor.getSnapshot().context.generation).to.equal(generation);
  });

  it('deletes through DELETING to the final DELETED once the Node removed it', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'DELETE', at });
    expect(actor.getSnapshot().value).to.equal('DELETING');
    expect(actor.getSnapshot().context.desired.state).to.equal('DELETED');
    expect(actor.getSnapshot().can({ type: 'START', at })).to.equal(false);
    expect(actor.getSnapshot().can({ type: 'DELETE', at })).to.equal(true);
    actor.send({ type: 'REMOVED', at });
    expect(actor.getSnapshot().status).to.equal('done');
  });

  it('runs a workflow from READY and refuses power actions until it ends', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'RESTORE', step: 'stopping' });
    expect(actor.getSnapshot().value).to.equal('RESTORING');
    expect(actor.getSnapshot().can({ type: 'START', at })).to.equal(false);
    actor.send({ type: 'WORKFLOW_STEP', at, step: 'unpacking' });
    expect(actor.getSnapshot().context.workflow?.step).to.equal('unpacking');
    actor.send({ type: 'WORKFLOW_DONE', at });
    expect(actor.getSnapshot().value).to.equal('READY');
    expect(actor.getSnapshot().context.workflow).to.equal(undefined);
  });

  it('a workflow step keeps its facts and may set the software (a new generation); success clears an earlier failure', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'RESTORE', step: 'backing up', facts: { backupId: 'b1' } });
    const before = actor.getSnapshot().context.generation;
    actor.send({ type: 'WORKFLOW_STEP', at, step: 'committing', facts: { hold: true }, software: { template: 'simcraft', version: '1.20.6' } });
    const { context } = actor.getSnapshot();
    expect(context.workflow).to.deep.include({ kind: 'RESTORE', step: 'committing', hold: true, backupId: 'b1' });
    expect(context.desired.software.version).to.equal('1.20.6');
    expect(context.generation).to.equal(before + 1);
  });

  it('a rolled-back workflow returns to READY with a failure condition that acknowledging clears', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'START', at }, { type: 'WORKFLOW_BEGIN', at, kind: 'MIGRATE', step: 'copying', facts: { targetNodeId: 't' } });
    expect(actor.getSnapshot().value).to.equal('MIGRATING');
    actor.send({ type: 'WORKFLOW_ABORTED', at, reason: 'MIGRATION_FAILED', message: 'the target Agent did not answer' });
    const { value, context } = actor.getSnapshot();
    expect(value).to.equal('READY');
    expect(context.workflow).to.equal(undefined);
    expect(context.desired.state).to.equal('RUNNING');
    expect(context.workflowFailure).to.deep.include({ reason: 'MIGRATION_FAILED', message: 'the target Agent did not answer' });
    const generation = context.generation;
    actor.send({ type: 'ACKNOWLEDGE', at, conditionId: context.workflowFailure!.id });
    expect(actor.getSnapshot().context.workflowFailure).to.equal(undefined);
    expect(actor.getSnapshot().context.generation).to.equal(generation);

    actor.send({ type: 'WORKFLOW_BEGIN', at, kind: 'MIGRATE', step: 'copying' });
    actor.send({ type: 'WORKFLOW_ABORTED', at, reason: 'MIGRATION_FAILED', message: 'again' });
    actor.send({ type: 'WORKFLOW_BEGIN', at, kind: 'MIGRATE', step: 'copying' });
    actor.send({ type: 'WORKFLOW_DONE', at });
    expect(actor.getSnapshot().context.workflowFailure).to.equal(undefined);
  });

  it('survives persistence: a restored actor continues where the old one was', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'START', at });
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as ReturnType<typeof actor.getPersistedSnapshot>;
    const restored = createActor(serverMachine, { snapshot: persisted, input: { desired, at } }).start();
    expect(restored.getSnapshot().value).to.equal('READY');
    expect(restored.getSnapshot().context.generation).to.equal(2);
    restored.send({ type: 'STOP', at });
    expect(restored.getSnapshot().context.generation).to.equal(3);
  });

  it('a start of a sleeping server wakes it (a new wake nonce); of an awake running one changes nothing', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'START', at });
    const running = actor.getSnapshot().context;
    actor.send({ type: 'START', at });
    expect(actor.getSnapshot().context.generation).to.equal(running.generation);
    actor.send({ type: 'START', at, asleep: true });
    const woken = actor.getSnapshot().context;
    expect(woken.desired.wakeNonce).to.equal(1);
    expect(woken.generation).to.equal(running.generation + 1);
    expect(woken.desired.state).to.equal('RUNNING');
  });

  it('sets sleep with UPDATE and removes it with null', () => {
    const actor = actorIn({ type: 'INSTALLED', at }, { type: 'UPDATE', at, sleep: { afterEmptySeconds: 60, wakeOnJoin: true } });
    expect(actor.getSnapshot().context.desired.sleep).to.deep.equal({ afterEmptySeconds: 60, wakeOnJoin: true });
    actor.send({ type: 'UPDATE', at, sleep: null });
    expect(actor.getSnapshot().context.desired).to.not.have.property('sleep');
  });
});
