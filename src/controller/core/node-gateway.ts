import type { PortRange } from '../../shared/link/messages.js';
import type { Reservation } from '../domain/server-spec.js';
import type { ServerDoc } from '../store/records.js';

/**
 * What servers, networks, plugins and workflows need to know of Nodes. It stands below every
 * capability because the agent link implements it (desired-sender.ts) over the Nodes' records.
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

export interface NodeGateway {
  get(nodeId: string): Promise<NodeInfo | undefined>;
  list(): Promise<NodeInfo[]>;
  /** Whether the Node's Agent can be heard (HEALTHY or DEGRADED). */
  isConnected(nodeId: string): boolean;
  /**
   * The desired state of the Node's servers changed: send the Node the given servers' desired
   * state (each its own change, made from the record as just written), or its full desired state
   * when `servers` is not given.
   */
  desiredStateChanged(nodeId: string, servers?: readonly ServerDoc[]): void;
}
