import type { Convergence, Phase, ServerRuntimeState, ServerDetail } from '../../api/types';

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

export type PowerVerb = 'start' | 'stop' | 'restart';

/**
 * The API takes power actions only while the phase is READY (`phase_busy` otherwise); within
 * that, Start is for a server meant to be stopped or not running, Stop and Restart for one
 * meant to run.
 */
export function powerAllowed(server: Pick<ServerDetail, 'phase' | 'desiredState'> & { runtimeState?: ServerRuntimeState }, verb: PowerVerb): boolean {
  if (server.phase !== 'READY') return false;
  const running = server.runtimeState === 'RUNNING' || server.runtimeState === 'STARTING';
  if (verb === 'start') return server.desiredState !== 'RUNNING' || !running;
  return server.desiredState === 'RUNNING';
}
