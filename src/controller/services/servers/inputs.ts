import type { Reservation, ServerKind, ServerRestartPolicy, ServerSoftware } from '../../domain/server-spec.js';

export interface CreateServerInput {
  name: string;
  teamId: string;
  software: ServerSoftware;
  resources: Reservation;
  nodeId?: string;
  inNetwork?: boolean;
  restartPolicy?: ServerRestartPolicy;
  network?: ServerNetworkInput;
}

/** `network` of POST and PATCH /servers: `CIDR[:PORT]` entries, checked by the schema. */
export interface ServerNetworkInput {
  egressAllow: string[];
}

/** The network's proxy, as POST /network/proxy creates it (the network service checks who may). */
export interface CreateProxyInput {
  name: string;
  /** The proxy's team, resolved once it is placed (a team made for it is not made for a refused proxy). */
  team: () => Promise<string>;
  software: CreateServerInput['software'];
  resources: Reservation;
  nodeId?: string;
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
