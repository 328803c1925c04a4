// With its extension: the unit tests type-check this file under Node's module resolution.
import type { Convergence, Phase, ServerRuntimeState } from '../../api/types.js';

/**
 * What the UI shows for a state: the API's enum values, and SLEEPING, which the API says with
 * `sleeping: true` beside runtimeState STOPPED (as `cairn get servers` shows it in its STATE column).
 */
export type ShownState = Phase | ServerRuntimeState | Convergence | 'SLEEPING';

/** A server's runtime state as shown: SLEEPING while it sleeps (a list item's `sleeping`, or the detail's `status.sleeping`). */
export const shownRuntime = (server: { runtimeState?: ServerRuntimeState; sleeping?: true }): ServerRuntimeState | 'SLEEPING' | undefined =>
  server.sleeping ? 'SLEEPING' : server.runtimeState;
