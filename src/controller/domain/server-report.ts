import type { LastCrash } from './last-crash.js';
import type { ServerRuntimeState } from './server-spec.js';
import type { Players, ResourceAmounts, StatusCondition } from './status.js';

/** One server's status as an Agent reports it (the link turns its messages into this). */
export interface ServerReport {
  serverId: string;
  observedGeneration: number;
  runtimeState?: ServerRuntimeState;
  installed: boolean;
  /** Installing failed for good (e.g. a checksum mismatch): the server goes FAILED. */
  installError?: string;
  removed: boolean;
  restarting: boolean;
  /** The membership the process was started with, while it starts or runs. */
  startedInNetwork: boolean;
  usage: ResourceAmounts;
  conditions: StatusCondition[];
  startedAt?: string;
  /** The game's process id while it starts or runs. */
  pid?: number;
  /** Kept in memory only (ServerCrashes), never in the observed status the store holds. */
  lastCrash?: LastCrash;
  /** What the server's last Server List Ping answered, while it runs. */
  players?: Players;
  /** The game port another program holds, which the Agent refused to start the game on (PORT_IN_USE). */
  portInUse?: number;
}
