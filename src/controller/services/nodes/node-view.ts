import type { NodeState } from '../../actors/fleet.js';
import { controllerConditions } from '../../actors/node-conditions.js';
import { reachAddressOf } from '../../../shared/node-address.js';
import type { Reservation } from '../../domain/server-spec.js';
import type { NodeDoc } from '../../store/records.js';

/** What the servers placed on a Node reserve of it: nothing yet. */
export const noReservation = (): Reservation => ({ cpuMillis: 0, memoryBytes: 0 });

/** Why a Node is DISABLED and its servers move one by one: a drain under way (it ends when none is left to move). */
const drainingCondition = (since: string) => ({
  ...controllerConditions.draining, source: 'CONTROLLER' as const, since,
  message: 'A drain is moving this Node\'s servers to other Nodes, one at a time; enabling the Node ends it.',
});

/**
 * A Node as the API shows it: the stored record (name, address, createdAt), the fleet's live
 * state (when this Controller drives it), the reservation sums and the Controller driving it. `free` is allocatable minus reserved, never below zero.
 */
export function nodeView(doc: NodeDoc, live: NodeState | undefined, reserved: Reservation, controllerId?: string) {
  const status = live?.status ?? doc.status;
  const { observedAddress, lastHeartbeatAt, ...facts } = status;
  const connectionState = live?.connectionState ?? storedConnectionState(doc, controllerId);
  return {
    id: doc._id,
    name: doc.name,
    adminState: live?.adminState ?? doc.adminState,
    acceptsPlacements: live?.acceptsPlacements ?? (doc.adminState === 'ENABLED' && connectionState === 'HEALTHY'),
    address: doc.address,
    reachAddress: reachAddressOf(doc.address, observedAddress),
    createdAt: doc.createdAt,
    status: {
      ...(observedAddress ? { observedAddress } : {}),
      ...facts,
      connectionState,
      ...(lastHeartbeatAt ? { lastHeartbeatAt } : {}),
      ...(controllerId ? { controllerId } : {}),
    },
    conditions: doc.drain ? [...(live?.conditions ?? doc.conditions), drainingCondition(doc.drain.startedAt)] : live?.conditions ?? doc.conditions,
    reserved,
    free: {
      cpuMillis: Math.max(0, status.allocatable.cpuMillis - reserved.cpuMillis),
      memoryBytes: Math.max(0, status.allocatable.memoryBytes - reserved.memoryBytes),
    },
  };
}

export type NodeView = ReturnType<typeof nodeView>;

/**
 * A Node driven elsewhere is as its holder last wrote it. With no live holder, what was written is
 * stale (a holder that died wrote no UNREACHABLE; before its first holder, the record still says
 * AWAITING_ENROLLMENT after the Agent enrolled): nobody hears its Agent.
 */
function storedConnectionState(doc: NodeDoc, controllerId: string | undefined): NodeDoc['status']['connectionState'] {
  if (controllerId !== undefined) return doc.status.connectionState;
  return doc.enrolledAt === undefined ? 'AWAITING_ENROLLMENT' : 'UNREACHABLE';
}
