import type { ServerDoc } from '../store/records.js';

/**
 * Where a change to servers' desired state is told so their Node hears it. It stands below every
 * capability because the agent link implements it (agent-link/desired-sender.ts).
 */
export interface DesiredChanges {
  /**
   * The desired state of the Node's servers changed: send the Node the given servers' desired
   * state (each its own change, made from the record as just written), or its full desired state
   * when `servers` is not given.
   */
  desiredStateChanged(nodeId: string, servers?: readonly ServerDoc[]): void;
}
