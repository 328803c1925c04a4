import type { NodeOwnership } from '../../core/node-ownership.js';
import type { ClusterController } from '../../schemas/cluster.js';

/** Where this Controller is reached, told to the others through its own lease. */
export interface ControllerSelf {
  /** The link address Agents are sent to (--advertise-address, else the link's own). */
  address: string;
  httpAddress: string;
}

export type LeaseChange = 'gained' | 'lost';

/** This Controller's place among those sharing the store: what it drives, and who else runs. */
export interface ClusterMembership extends NodeOwnership {
  /** Starts taking part once the link and the API listen (their addresses are told to the others). */
  start(self: ControllerSelf): Promise<void>;
  /** Stops renewing and hands its leases back, so the others need not wait for them to expire. */
  stop(): Promise<void>;
  /** Every live Controller on the store, with how many Nodes each drives. */
  controllers(): Promise<ClusterController[]>;
  /** Node leases held now. */
  readonly heldCount: number;
  /** Hears every Node lease gained or lost, with its Node. */
  onChange(listener: (change: LeaseChange, nodeId: string) => void): void;
}
