import type { LastCrash } from './last-crash.js';
import type { ServerObserved } from './server-spec.js';

/**
 * One server's status as an Agent reports it (the link turns its messages into this): the observed
 * status the record keeps, but for when the Controller heard it, and what only the report carries.
 */
export interface ServerReport extends Omit<ServerObserved, 'reportedAt'> {
  serverId: string;
  /** Installing failed for good (e.g. a checksum mismatch): the server goes FAILED. */
  installError?: string;
  removed: boolean;
  /** Kept in memory only (ServerCrashes), never in the observed status the store holds. */
  lastCrash?: LastCrash;
  /** The game port another program holds, which the Agent refused to start the game on (PORT_IN_USE). */
  portInUse?: number;
}

/**
 * The observed status a report sets, heard at `reportedAt`. Built from a literal, field by field: the
 * Controller keeps one per server, and on Node 20 (V8 11.3) `{ ...observed, reportedAt }` gave each
 * its own hidden class (a map and a descriptor array in old space, walked by every major GC), as does
 * any object grown key by key from `{}` once a long-running process has given `{}` its 1,536
 * transitions. A literal starts from a map of its own. (test/unit/observed-shape.test.ts)
 */
export function observedOf(report: ServerReport, reportedAt: string): ServerObserved {
  const observed: ServerObserved = {
    observedGeneration: report.observedGeneration, installed: report.installed, restarting: report.restarting,
    startedInNetwork: report.startedInNetwork, usage: report.usage, conditions: report.conditions, reportedAt,
  };
  if (report.runtimeState !== undefined) observed.runtimeState = report.runtimeState;
  if (report.startedAt !== undefined) observed.startedAt = report.startedAt;
  if (report.pid !== undefined) observed.pid = report.pid;
  if (report.players !== undefined) observed.players = report.players;
  if (report.sleeping !== undefined) observed.sleeping = report.sleeping;
  if (report.lastWake !== undefined) observed.lastWake = report.lastWake;
  return observed;
}
