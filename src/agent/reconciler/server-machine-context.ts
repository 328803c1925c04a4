import type { CrashRecord } from './crash-record.js';
import type { RestartCount } from './restart-count.js';
import type { AppliedSpec, ServerTarget } from './server-target.js';
import type { AgentCondition } from './start-refusal.js';

/** What one server's machine (server-machine.ts) starts from and keeps. */

export interface ServerMachineInput {
  desired: ServerTarget;
  /** Why this Node starts no game (`--isolation required` without the whole box); the server then stays stopped. */
  startRefusal?: AgentCondition;
  /** Why this server's software cannot start here (RUNTIME_MISSING: no fitting Java); each desired state brings its own. */
  runtimeRefusal?: AgentCondition;
  /** First automatic-restart delay; doubles per crash in the window, capped at 30 s. */
  backoffBaseMs: number;
}

export interface ServerMachineContext extends RestartCount {
  desired: ServerTarget;
  observedGeneration: number;
  applied?: AppliedSpec;
  /** Crash times (ms) inside the restart window. */
  crashes: number[];
  lastExitCrashed: boolean;
  /** The game exited while its launch was still settling: the launch ends in `crashed`. */
  runEnded: boolean;
  /** The last crash while this Agent runs (never stored: it holds console lines). */
  lastCrash?: CrashRecord;
  conditions: AgentCondition[];
  /** The game port another program held at the last check; the PORT_IN_USE condition stands until the game runs. */
  portInUse?: number;
  installError?: string;
  backoffBaseMs: number;
  startRefusal?: AgentCondition;
  runtimeRefusal?: AgentCondition;
  /** While asleep: when it fell asleep, and the desired wake nonce then (a newer one wakes it). */
  asleep?: { since: string; wakeNonce: number };
  /** Its last wake since it last fell asleep: by a login (`player`) or, with none, a start. */
  lastWake?: { at: string; player: string };
}
