import { assign, setup } from 'xstate';
import type { Reservation, ServerDesired, ServerSleep, ServerSoftware, Workflow, WorkflowFacts, WorkflowFailure } from '../domain/server-spec.js';

export interface ServerPhaseContext {
  generation: number;
  desired: ServerDesired;
  workflow?: Workflow;
  failure?: string;
  /** The condition the failure shows as: INSTALL_FAILED when the software could not be installed. */
  failureReason?: 'INSTALL_FAILED' | 'WORKFLOW_FAILED';
  /** The last rolled-back workflow, until acknowledged or a later workflow succeeds. */
  workflowFailure?: WorkflowFailure;
}

/** Every event carries the time it happened at, so the machine stays free of clocks and I/O. */
export type ServerEvent =
  /** `asleep`: the server sleeps now (its Agent said so), and a start wakes it. */
  | { type: 'START'; at: string; asleep?: boolean }
  | { type: 'STOP'; at: string }
  | { type: 'RESTART'; at: string }
  /** `sleep` null turns sleeping off. */
  | { type: 'UPDATE'; at: string; resources?: Reservation; inNetwork?: boolean; egressAllow?: string[]; sleep?: ServerSleep | null }
  | { type: 'ACKNOWLEDGE'; at: string; conditionId: string }
  | { type: 'DELETE'; at: string }
  /** Install again after a failed install: back to PROVISIONING with a new generation, which the Agent installs. */
  | { type: 'REINSTALL'; at: string }
  | { type: 'INSTALLED'; at: string }
  | { type: 'INSTALL_FAILED'; at: string; message: string }
  | { type: 'REMOVED'; at: string }
  | { type: 'WORKFLOW_BEGIN'; at: string; kind: 'MIGRATE' | 'RESTORE' | 'UPDATE'; step: string; facts?: WorkflowFacts }
  /** The next step; `software` changes the desired spec (a restore sets the backup's software). */
  | { type: 'WORKFLOW_STEP'; at: string; step: string; facts?: WorkflowFacts; software?: ServerSoftware }
  | { type: 'WORKFLOW_DONE'; at: string }
  /** Rolled back: the server is READY as before, the failure shown until acknowledged. */
  | { type: 'WORKFLOW_ABORTED'; at: string; reason: WorkflowFailure['reason']; message: string }
  | { type: 'WORKFLOW_FAILED'; at: string; message: string };

/** A desired-spec change: the new spec and the next generation, together. */
const change = (context: ServerPhaseContext, patch: Partial<ServerDesired>): Partial<ServerPhaseContext> => ({
  generation: context.generation + 1,
  desired: { ...context.desired, ...patch },
});

/**
 * The server's phase machine. Phases are the workflows the Controller runs (PROVISIONING until
 * the Node installed the software, DELETING until the Node removed it, ...); READY is the only
 * phase that takes power and spec changes, so any other phase refuses them (`phase_busy`).
 * DELETED is final: the service removes the record then.
 */
export const serverMachine = setup({
  types: {
    context: {} as ServerPhaseContext,
    events: {} as ServerEvent,
    input: {} as { desired: ServerDesired; at: string },
  },
  guards: {
    runningDesired: ({ context }) => context.desired.state === 'RUNNING',
    asleep: ({ context, event }) => context.desired.state === 'RUNNING' && event.type === 'START' && event.asleep === true,
  },
  actions: {
    /** Accepted and audited, but the desired spec is what it was: no new generation. */
    unchanged: () => {},
    start: assign(({ context }) => change(context, { state: 'RUNNING' })),
    stop: assign(({ context }) => change(context, { state: 'STOPPED' })),
    restart: assign(({ context }) => change(context, { state: 'RUNNING', restartNonce: context.desired.restartNonce + 1 })),
    wake: assign(({ context }) => change(context, { wakeNonce: (context.desired.wakeNonce ?? 0) + 1 })),
    update: assign(({ context, event }) => {
      if (event.type !== 'UPDATE') return {};
      const next = change(context, {
        ...(event.resources ? { resources: event.resources } : {}),
        ...(event.inNetwork !== undefined ? { inNetwork: event.inNetwork } : {}),
        ...(event.egressAllow !== undefined ? { egressAllow: event.egressAllow } : {}),
        ...(event.sleep ? { sleep: event.sleep } : {}),
      });
      if (event.sleep === null) delete next.desired!.sleep;
      return next;
    }),
    acknowledge: assign(({ context, event }) => {
      if (event.type !== 'ACKNOWLEDGE') return {};
      // A rolled-back workflow's condition is the Controller's own: acknowledging it clears it.
      if (context.workflowFailure?.id === event.conditionId) return { workflowFailure: undefined };
      if (context.desired.acknowledgedConditions.includes(event.conditionId)) return {};
      return change(context, { acknowledgedConditions: [...context.desired.acknowledgedConditions, event.conditionId] });
    }),
    markDeleted: assign(({ context, event }) => ({
      ...change(context, { state: 'DELETED' }),
      workflow: { kind: 'DELETE' as const, startedAt: event.at, step: 'removing from the Node' },
    })),
    beginWorkflow: assign(({ event }) =>
      event.type === 'WORKFLOW_BEGIN' ? { workflow: { ...event.facts, kind: event.kind, startedAt: event.at, step: event.step } } : {}),
    stepWorkflow: assign(({ context, event }) => {
      if (event.type !== 'WORKFLOW_STEP' || !context.workflow) return {};
      const workflow = { ...context.workflow, ...event.facts, step: event.step };
      return event.software ? { ...change(context, { software: event.software }), workflow } : { workflow };
    }),
    endWorkflow: assign({ workflow: undefined, failure: undefined, failureReason: undefined }),
    succeedWorkflow: assign({ workflow: undefined, failure: undefined, failureReason: undefined, workflowFailure: undefined }),
    abortWorkflow: assign(({ context, event }) => {
      if (event.type !== 'WORKFLOW_ABORTED') return {};
      const kind = (context.workflow?.kind ?? 'workflow').toLowerCase();
      return { workflow: undefined, workflowFailure: { id: `${kind}:${event.at}`, reason: event.reason, message: event.message, at: event.at } };
    }),
    reinstall: assign(({ context, event }) => ({
      ...change(context, {}),
      workflow: { kind: 'PROVISION' as const, startedAt: event.at, step: 'installing the software on the Node' },
      failure: undefined,
      failureReason: undefined,
    })),
    fail: assign(({ event }) => ({
      workflow: undefined,
      failure: event.type === 'INSTALL_FAILED' || event.type === 'WORKFLOW_FAILED' ? event.message : 'failed',
      failureReason: event.type === 'INSTALL_FAILED' ? 'INSTALL_FAILED' as const : 'WORKFLOW_FAILED' as const,
    })),
  },
}).createMachine({
  id: 'server',
  context: ({ input }) => ({
    generation: 1,
    desired: input.desired,
    workflow: { kind: 'PROVISION', startedAt: input.at, step: 'installing the software on the Node' },
  }),
  initial: 'PROVISIONING',
  states: {
    PROVISIONING: {
      on: {
        INSTALLED: { target: 'READY', actions: 'endWorkflow' },
        INSTALL_FAILED: { target: 'FAILED', actions: 'fail' },
        DELETE: { target: 'DELETING', actions: 'markDeleted' },
      },
    },
    READY: {
      on: {
        START: [{ guard: 'asleep', actions: 'wake' }, { guard: 'runningDesired', actions: 'unchanged' }, { actions: 'start' }],
        STOP: { actions: 'stop' },
        RESTART: { actions: 'restart' },
        UPDATE: { actions: 'update' },
        ACKNOWLEDGE: { actions: 'acknowledge' },
        DELETE: { target: 'DELETING', actions: 'markDeleted' },
        WORKFLOW_BEGIN: [
          { guard: ({ event }) => event.kind === 'MIGRATE', target: 'MIGRATING', actions: 'beginWorkflow' },
          { guard: ({ event }) => event.kind === 'RESTORE', target: 'RESTORING', actions: 'beginWorkflow' },
          { target: 'UPDATING', actions: 'beginWorkflow' },
        ],
      },
    },
    MIGRATING: { on: workflowEvents() },
    RESTORING: { on: workflowEvents() },
    UPDATING: { on: workflowEvents() },
    DELETING: {
      on: {
        // Deleting twice is not an error: the first request already asked for it.
        DELETE: { target: 'DELETING' },
        REMOVED: { target: 'DELETED', actions: 'endWorkflow' },
      },
    },
    FAILED: {
      on: {
        ACKNOWLEDGE: { actions: 'acknowledge' },
        // Only a failed install is retried this way: a failed workflow left installed files the service refuses to reinstall over.
        REINSTALL: { target: 'PROVISIONING', actions: 'reinstall' },
        // Any new generation (an acknowledgement too) has the Agent install again: when that works, the server is READY.
        INSTALLED: { guard: ({ context }) => context.failureReason === 'INSTALL_FAILED', target: 'READY', actions: 'endWorkflow' },
        DELETE: { target: 'DELETING', actions: 'markDeleted' },
      },
    },
    DELETED: { type: 'final' },
  },
});

/**
 * The transitions every long workflow (migrate, restore, update) shares: steps, success, a
 * rollback to READY (the usual end of a failure), or FAILED when nothing could be rolled back.
 */
function workflowEvents() {
  return {
    WORKFLOW_STEP: { actions: 'stepWorkflow' as const },
    WORKFLOW_DONE: { target: 'READY' as const, actions: 'succeedWorkflow' as const },
    WORKFLOW_ABORTED: { target: 'READY' as const, actions: 'abortWorkflow' as const },
    WORKFLOW_FAILED: { target: 'FAILED' as const, actions: 'fail' as const },
  };
}
