import { Counter, type Registry } from 'prom-client';
import { recordedWorkflowKinds, workflowResults, type WorkflowOutcomes } from '../services/workflows/workflow-outcomes.js';

/** `cairn_workflows_total{kind,result}`: server workflows by how they ended; every series exists from the start at 0. */
export function createWorkflowMetrics(registry: Registry, outcomes: WorkflowOutcomes): void {
  const ended = new Counter({
    name: 'cairn_workflows_total',
    help: `Server workflows that ended, by kind (${recordedWorkflowKinds.join(', ')}) and result (${workflowResults.join(', ')}).`,
    labelNames: ['kind', 'result'] as const,
    registers: [registry],
  });
  for (const kind of recordedWorkflowKinds) for (const result of workflowResults) ended.inc({ kind, result }, 0);
  outcomes.subscribe((kind, result) => ended.inc({ kind, result }));
}
