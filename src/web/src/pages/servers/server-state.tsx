import type { Convergence, Phase, ServerRuntimeState } from '../../api/types';

type Tone = 'good' | 'busy' | 'bad' | undefined;

const tones: Record<string, Tone> = {
  READY: 'good', RUNNING: 'good', CONVERGED: 'good', STOPPED: undefined,
  PROVISIONING: 'busy', MIGRATING: 'busy', RESTORING: 'busy', UPDATING: 'busy', DELETING: 'busy',
  STARTING: 'busy', STOPPING: 'busy', IN_PROGRESS: 'busy',
  FAILED: 'bad', CRASHED: 'bad', DISCREPANCY: 'bad', UNKNOWN: 'bad',
};

/** An enum value of the API shown as it is (`RUNNING`, `CONVERGED`), coloured by what it means. */
export function StateText({ value }: { value: Phase | ServerRuntimeState | Convergence | undefined }) {
  if (!value) return <span className="state">—</span>;
  return <span className={`state ${tones[value] ?? ''}`}>{value}</span>;
}
