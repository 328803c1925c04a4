import type { Convergence, Phase, ServerRuntimeState } from '../../api/types';
import { stateWords } from './state-words';

type Tone = 'good' | 'busy' | 'bad' | undefined;
type StateValue = Phase | ServerRuntimeState | Convergence;

const tones: Record<string, Tone> = {
  READY: 'good', RUNNING: 'good', CONVERGED: 'good', STOPPED: undefined,
  PROVISIONING: 'busy', MIGRATING: 'busy', RESTORING: 'busy', UPDATING: 'busy', DELETING: 'busy',
  STARTING: 'busy', STOPPING: 'busy', IN_PROGRESS: 'busy',
  FAILED: 'bad', CRASHED: 'bad', DISCREPANCY: 'bad', UNKNOWN: 'bad',
};

/** An enum value of the API shown as it is (`RUNNING`, `CONVERGED`), coloured by what it means, its plain words as its tooltip. */
export function StateText({ value }: { value: StateValue | undefined }) {
  if (!value) return <span className="state">—</span>;
  return <span className={`state ${tones[value] ?? ''}`} title={stateWords[value]}>{value}</span>;
}

/** The enum value and, beside it, what it means in plain words: for the server page, where there is room. */
export function StateWithWords({ value }: { value: StateValue | undefined }) {
  return <><StateText value={value} />{value ? <span className="state-words"> {stateWords[value]}</span> : null}</>;
}
