import { accepts, machineState, ServerFleet, type ServerActor } from '../../actors/server-fleet.js';
import type { ServerEvent } from '../../actors/server-machine.js';
import { DomainError } from '../../core/errors.js';
import type { ServerDoc } from '../../store/records.js';

/** The machine refused a command in its present phase. */
export function busyError(actor: ServerActor): DomainError {
  const { phase, context } = machineState(actor);
  const doing = context.workflow ? ` (${context.workflow.kind.toLowerCase()}: ${context.workflow.step})` : '';
  return new DomainError('phase_busy', `The server is ${phase}${doing}; try again when it is READY.`);
}

/** The record's fields that the server's machine decides. */
export function fromActor(actor: ServerActor): Pick<ServerDoc, 'phase' | 'generation' | 'desired' | 'workflow' | 'failure' | 'failureReason' | 'workflowFailure'> {
  const { phase, context } = machineState(actor);
  return {
    phase, generation: context.generation, desired: context.desired,
    ...(context.workflow ? { workflow: context.workflow } : {}),
    ...(context.failure ? { failure: context.failure } : {}),
    ...(context.failureReason ? { failureReason: context.failureReason } : {}),
    ...(context.workflowFailure ? { workflowFailure: context.workflowFailure } : {}),
  };
}

/** Whether the actor still stands where the record does: not once another Controller wrote the record. */
export function mirrors(actor: ServerActor, doc: ServerDoc): boolean {
  const { phase, context } = machineState(actor);
  return phase === doc.phase && context.generation === doc.generation && context.workflow?.kind === doc.workflow?.kind && context.workflow?.step === doc.workflow?.step;
}

/**
 * The record after the machine took an event: what is written, and what a dry run answers
 * without writing it. The machine's optional fields are its own (one it cleared goes), and a
 * record written before the machine's state was rebuilt from its fields sheds the copy it kept (`snapshot`).
 */
export function nextRecord(before: ServerDoc, actor: ServerActor, observed: ServerDoc['observed'], at: string): ServerDoc {
  const { workflow: _w, failure: _f, failureReason: _fr, workflowFailure: _wf, snapshot: _s, ...rest } = before as ServerDoc & { snapshot?: unknown };
  return { ...rest, ...fromActor(actor), observed, updatedAt: at };
}

/**
 * The record as `event` would leave it, decided by a copy of the server's actor and refused as
 * the actor itself would refuse it (`phase_busy`): a dry run's answer. Nothing is written and
 * the server's own actor is left as it is.
 */
export function previewRecord(current: ServerDoc, event: ServerEvent, at: string): ServerDoc {
  const actor = ServerFleet.revived(current);
  try {
    if (!accepts(actor, event)) throw busyError(actor);
    actor.send(event);
    return nextRecord(current, actor, current.observed, at);
  } finally {
    actor.stop();
  }
}
