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

export type OutcomeListener = (kind: RecordedWorkflowKind, result: WorkflowResult) => void;

/** Every workflow's end, for the metrics (`cairn_workflows_total`). */
export class WorkflowOutcomes {
  private readonly listeners = new Listeners<Parameters<OutcomeListener>>();

  record(kind: RecordedWorkflowKind, result: WorkflowResult): void {
    this.listeners.emit(kind, result);
  }

  subscribe(listener: OutcomeListener): () => void {
    return this.listeners.add(listener);
  }
}
