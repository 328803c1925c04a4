import { Counter, type Registry } from 'prom-client';
import type { WorkflowOutcomes } from '../services/workflow-outcomes.js';

/** `cairn_workflows_total{kind,result}`: server workflows (migrations, restores, ...) by how they ended. */
export function createWorkflowMetrics(registry: Registry, outcomes: WorkflowOutcomes): void {
  const ended = new Counter({
    name: 'cairn_workflows_total',
    help: 'Server workflows that ended, by kind (MIGRATE, RESTORE, ...) and result (succeeded, rolled_back, failed).',
    labelNames: ['kind', 'result'] as const,
    registers: [registry],
  });
  outcomes.subscribe((kind, result) => ended.inc({ kind, result }));
}
