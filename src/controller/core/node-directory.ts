import type { PortRange } from '../../shared/link/messages.js';
import type { Reservation } from '../domain/server-spec.js';

/**
 * What servers, networks, plugins and workflows need to know of a Node. It stands below every
 * capability because the Nodes' own view (nodes/node-directory.ts) implements it over their actors.
 */
export interface NodeInfo {
  nodeId: string;
  acceptsPlacements: boolean;
  allocatable: Reservation;
  /** The host the Agent runs on: Nodes that share a host share its TCP ports. */
  hostname: string;
  /** The host ports the Node's Agent offers for game servers. */
  gamePorts: PortRange;
  /** The majors of the Java installations its Agent found (placement prefers a Node with the one a server needs). */
  javaMajors: number[];
}

/** The Nodes as the capabilities above them read them. */
export interface NodeDirectory {
  get(nodeId: string): Promise<NodeInfo | undefined>;
  list(): Promise<NodeInfo[]>;
  /** Whether the Node's Agent can be heard (HEALTHY or DEGRADED). */
  isConnected(nodeId: string): boolean;
}
