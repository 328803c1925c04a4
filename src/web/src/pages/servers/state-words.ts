import type { ShownState } from './shown-runtime';

/**
 * The API's state values in the words of someone who runs a Minecraft server. The page shows the
 * enum value itself too (operators read it in the CLI, the API and the docs), so these only explain it.
 */
export const stateWords: Record<ShownState, string> = {
  PROVISIONING: 'being installed',
  READY: 'installed, can start',
  MIGRATING: 'moving to another Node',
  RESTORING: 'restoring a backup',
  UPDATING: 'changing its software',
  DELETING: 'being deleted',
  FAILED: 'the last install or change failed',
  STOPPED: 'the game is not running',
  STARTING: 'the game is starting',
  RUNNING: 'the game is running',
  STOPPING: 'the game is shutting down',
  CRASHED: 'the game crashed',
  SLEEPING: 'stopped while nobody plays; Start wakes it',
  CONVERGED: 'in sync with what you asked',
  IN_PROGRESS: 'applying what you asked',
  DISCREPANCY: 'not what you asked; see Conditions',
  UNKNOWN: 'its Node has not reported',
};

/** What each fact of the server page is in the API, for its tooltip and the legend. */
export const stateFields = {
  phase: { term: 'Phase', field: 'phase', means: 'where the server is in its life: installed, moving, restoring, updating.' },
  runtime: { term: 'Runtime state', field: 'status.runtimeState', means: 'what the game process is doing on its Node now.' },
  convergence: { term: 'Convergence', field: 'convergence', means: 'whether the server is as you asked (started, stopped, its settings).' },
  sleeping: { term: 'Sleeping', field: 'status.sleeping / status.sleepingSince', means: 'SLEEPING in the runtime state: the server sleeps when empty (Settings), so its game is stopped (runtimeState STOPPED) while it stays desired RUNNING and CONVERGED; Start, or a player joining when Wake on join is set, wakes it.' },
  desired: { term: 'Desired state', field: 'desiredState', means: 'what you last asked for: RUNNING or STOPPED.' },
  generation: { term: 'Generation', field: 'generation / observedGeneration', means: 'how many changes you made, and how many the Node has applied.' },
} as const;
