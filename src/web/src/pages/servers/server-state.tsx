import type { ShownState } from './shown-runtime';
import { stateWords } from './state-words';

type Tone = 'good' | 'busy' | 'bad' | undefined;

const tones: Record<string, Tone> = {
  READY: 'good', RUNNING: 'good', CONVERGED: 'good', STOPPED: undefined, SLEEPING: undefined,
  PROVISIONING: 'busy', MIGRATING: 'busy', RESTORING: 'busy', UPDATING: 'busy', DELETING: 'busy',
  STARTING: 'busy', STOPPING: 'busy', IN_PROGRESS: 'busy',
  FAILED: 'bad', CRASHED: 'bad', DISCREPANCY: 'bad', UNKNOWN: 'bad',
};

/** An enum value of the API shown as it is (`RUNNING`, `CONVERGED`), coloured by what it means, its plain words as its tooltip. */
export function StateText({ value }: { value: ShownState | undefined }) {
  if (!value) return <span className="state">—</span>;
  return <span className={`state ${tones[value] ?? ''}`} title={stateWords[value]}>{value}</span>;
}

/** The enum value and, beside it, what it means in plain words: for the server page, where there is room. */
export function StateWithWords({ value }: { value: ShownState | undefined }) {
  return <><StateText value={value} />{value ? <span className="state-words"> {stateWords[value]}</span> : null}</>;
}
