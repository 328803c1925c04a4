import type { LastCrash } from './last-crash.js';
import type { ServerObserved } from './server-spec.js';
import { withFields } from '../../shared/with-fields.js';

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

/** The observed status a report sets, heard at `reportedAt`. */
export function observedOf(report: ServerReport, reportedAt: string): ServerObserved {
  const { serverId, installError, removed, lastCrash, portInUse, ...observed } = report;
  return withFields(observed, { reportedAt });
}
