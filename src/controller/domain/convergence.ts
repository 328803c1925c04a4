import type { Convergence, ServerDesiredState, Phase, ServerObserved } from './server-spec.js';

export interface ConvergenceInput {
  nodeConnected: boolean;
  phase: Phase;
  generation: number;
  desiredState: ServerDesiredState;
  observed: ObservedRuntime;
}

/** What convergence reads of the observed status. */
type ObservedRuntime = Pick<ServerObserved, 'observedGeneration' | 'runtimeState' | 'restarting' | 'sleeping'>;

/** Does the observed runtime state satisfy the desired one? A crashed process counts as stopped; a sleeping one as running (its Agent wakes it on a join). */
function runtimeMatches(desired: ServerDesiredState, observed: ObservedRuntime): boolean {
  const runtime = observed.runtimeState;
  if (desired === 'RUNNING') return runtime === 'RUNNING' || (runtime === 'STOPPED' && observed.sleeping !== undefined);
  if (desired === 'STOPPED') return runtime === undefined || runtime === 'STOPPED' || runtime === 'CRASHED';
  return false;
}

/**
 * How observed state relates to desired state:
 * - UNKNOWN while the Node cannot be heard;
 * - CONVERGED when the Agent has seen the current generation and the runtime matches;
 * - IN_PROGRESS while something is moving towards it (a workflow, an unseen generation,
 *   a process starting or stopping, an automatic restart pending);
 * - DISCREPANCY when observed differs and nothing is moving (e.g. crashed, restarts used up).
 */
export function deriveConvergence(input: ConvergenceInput): Convergence {
  if (!input.nodeConnected) return 'UNKNOWN';
  const { observed } = input;
  if (input.phase !== 'READY' && input.phase !== 'FAILED') return 'IN_PROGRESS';
  if (input.phase === 'FAILED') return 'DISCREPANCY';
  const seen = observed.observedGeneration >= input.generation;
  if (seen && runtimeMatches(input.desiredState, observed)) return 'CONVERGED';
  if (!seen) return 'IN_PROGRESS';
  if (observed.runtimeState === 'STARTING' || observed.runtimeState === 'STOPPING') return 'IN_PROGRESS';
  if (observed.restarting) return 'IN_PROGRESS';
  return 'DISCREPANCY';
}
