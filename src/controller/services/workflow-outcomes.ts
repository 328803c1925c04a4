import type { WorkflowKind } from '../domain/server-spec.js';

/** How a workflow ended: done, rolled back to where it started, or failed with nothing to roll back to. */
export type WorkflowResult = 'succeeded' | 'rolled_back' | 'failed';

export type OutcomeListener = (kind: WorkflowKind, result: WorkflowResult) => void;

/** Every workflow's end, for the metrics (`cairn_workflows_total`). */
export class WorkflowOutcomes {
  private readonly listeners = new Set<OutcomeListener>();

  record(kind: WorkflowKind, result: WorkflowResult): void {
    for (const listener of this.listeners) listener(kind, result);
  }

  subscribe(listener: OutcomeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
