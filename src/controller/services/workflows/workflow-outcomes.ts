import { Listeners } from '../../../shared/listeners.js';

/**
 * The workflows whose end is recorded; `record` takes no other kind, so a workflow that starts
 * reporting is added here (and its counters start at zero from the first scrape).
 */
export const recordedWorkflowKinds = ['MIGRATE', 'RESTORE', 'UPDATE'] as const;
export type RecordedWorkflowKind = (typeof recordedWorkflowKinds)[number];

/** How a workflow ended: done, rolled back to where it started, or failed with nothing to roll back to. */
export const workflowResults = ['succeeded', 'rolled_back', 'failed'] as const;
export type WorkflowResult = (typeof workflowResults)[number];

export type OutcomeListener = (kind: RecordedWorkflowKind, result: WorkflowResult, serverId: string) => void;

/** Every workflow's end and the server it ran on, for the metrics (`cairn_workflows_total`) and notifications. */
export class WorkflowOutcomes {
  private readonly listeners = new Listeners<Parameters<OutcomeListener>>();

  record(kind: RecordedWorkflowKind, result: WorkflowResult, serverId: string): void {
    this.listeners.emit(kind, result, serverId);
  }

  subscribe(listener: OutcomeListener): () => void {
    return this.listeners.add(listener);
  }
}
