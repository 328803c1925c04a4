import type { Reservation, ServerKind, ServerRestartPolicy, ServerSoftware } from '../../domain/server-spec.js';

/** `sleep` of POST and PATCH /servers; null turns it off. */
export type SleepInput = { afterEmptySeconds: number; wakeOnJoin?: boolean } | null;

export interface CreateServerInput {
  name: string;
  teamId: string;
  software: ServerSoftware;
  resources: Reservation;
  nodeId?: string;
  inNetwork?: boolean;
  restartPolicy?: ServerRestartPolicy;
  network?: ServerNetworkInput;
  sleep?: SleepInput;
}

/** `network` of POST and PATCH /servers: `CIDR[:PORT]` entries, checked by the schema. */
export interface ServerNetworkInput {
  egressAllow: string[];
}

export interface ServerListQuery {
  limit: number;
  cursor?: string;
  teamId?: string;
  nodeId?: string;
  convergence?: string;
  kind?: ServerKind;
  inNetwork?: boolean;
}

/**
 * `dryRun`: every check the call makes (permissions, names, placement, the server's phase), then
 * the server as it would be, with nothing stored, no Node told and no actor changed.
 */
export interface ChangeOptions {
  dryRun?: boolean;
}

/** What PATCH /servers/{id} may change. */
export interface ServerUpdateInput { resources?: Reservation; inNetwork?: boolean; network?: ServerNetworkInput; sleep?: SleepInput }
