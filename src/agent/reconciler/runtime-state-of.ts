import type { ServerMachineContext } from './server-machine-context.js';

/** The states of the Agent's server machine (server-machine.ts). */
export type AgentServerState = 'probing' | 'installing' | 'installFailed' | 'deciding' | 'stopped' | 'checkingPort' | 'portBlocked' | 'launching' | 'starting' | 'running'
  | 'stopping' | 'fallingAsleep' | 'asleep' | 'stopFailed' | 'crashed' | 'backoff' | 'crashLoop' | 'removing' | 'removed';

/**
 * The runtime state the Agent reports for a machine state (undefined before anything is known).
 * Nothing running where a stop is desired is STOPPED, even after a crash: the crash stays
 * explained by the last crash and the CRASH_LOOP condition.
 */
export function runtimeStateOf(state: AgentServerState, context: ServerMachineContext): 'STOPPED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'CRASHED' | undefined {
  switch (state) {
    case 'probing':
    case 'installing':
    case 'installFailed':
      return undefined;
    case 'checkingPort':
      return context.portInUse === undefined ? 'STARTING' : 'STOPPED';
    case 'portBlocked':
      return 'STOPPED';
    case 'launching':
    case 'starting':
      return 'STARTING';
    case 'running':
      return 'RUNNING';
    case 'stopping':
    case 'fallingAsleep':
    case 'stopFailed':
    case 'removing':
      return 'STOPPING';
    case 'asleep':
      return 'STOPPED';
    case 'crashed':
    case 'backoff':
      return 'CRASHED';
    case 'crashLoop':
      return context.desired.state === 'RUNNING' ? 'CRASHED' : 'STOPPED';
    default:
      return context.lastExitCrashed && context.desired.state === 'RUNNING' ? 'CRASHED' : 'STOPPED';
  }
}
