import Type from 'typebox';
import { DateTime, Uuid } from './common.js';

const Int64 = Type.Integer({ format: 'int64' });

export const ResourceAmounts = Type.Object({
  cpuMillis: Int64,
  memoryBytes: Int64,
  diskBytes: Int64,
}, { description: 'cpuMillis in thousandths of a core; memoryBytes and diskBytes in bytes.' });

export const Reservation = Type.Object({ cpuMillis: Int64, memoryBytes: Int64 });

export const Condition = Type.Object({
  id: Type.String({ description: 'Stable while the situation lasts.' }),
  source: Type.Union([Type.Literal('AGENT'), Type.Literal('CONTROLLER')]),
  reason: Type.String({ description: 'Machine-readable cause, e.g. DISK_PRESSURE, HEARTBEAT_MISSED, NODE_UNREACHABLE. Treat unknown reasons as unrecognised conditions.' }),
  message: Type.String(),
  since: DateTime,
});

export const AdminState = Type.Union([Type.Literal('ENABLED'), Type.Literal('DISABLED'), Type.Literal('REVOKED')], {
  description: 'Set by administrators. REVOKED is final.',
});

export const ConnectionState = Type.Union([
  Type.Literal('AWAITING_ENROLLMENT'), Type.Literal('HEALTHY'), Type.Literal('DEGRADED'), Type.Literal('UNREACHABLE'),
], { description: 'DEGRADED: no heartbeat for 15 s, or the Agent reports pressure. UNREACHABLE: stream closed or no heartbeat for 45 s.' });

export const NodeStatus = Type.Object({
  observedAddress: Type.Optional(Type.String({ description: 'IP address the Agent last connected from.' })),
  connectionState: ConnectionState,
  agentVersion: Type.String(),
  hostname: Type.String(),
  os: Type.String(),
  arch: Type.String(),
  runtimeName: Type.String(),
  runtimeVersion: Type.String(),
  allocatable: ResourceAmounts,
  usage: ResourceAmounts,
  lastHeartbeatAt: Type.Optional(DateTime),
});

export const Node = Type.Object({
  id: Uuid,
  name: Type.String(),
  adminState: AdminState,
  acceptsPlacements: Type.Boolean({ description: 'True only when adminState is ENABLED and connectionState is HEALTHY.' }),
  address: Type.Optional(Type.String({ description: 'Where other Nodes reach this Node\'s published ports; empty means status.observedAddress.' })),
  reachAddress: Type.Optional(Type.String({ description: 'The address in use: address, or else status.observedAddress. Empty while unknown.' })),
  createdAt: DateTime,
  status: NodeStatus,
  conditions: Type.Array(Condition),
  reserved: Type.Object({ cpuMillis: Int64, memoryBytes: Int64 }, { description: 'Reserved by the servers on the Node, stopped ones included.' }),
  free: Type.Object({ cpuMillis: Int64, memoryBytes: Int64 }, { description: 'Allocatable minus reserved (never below zero).' }),
});

export const NodeName = Type.String({
  minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*$',
  description: '1 to 64 characters: letters, digits, space, `.`, `_` and `-`, starting with a letter or digit; unique regardless of case.',
});

/** A host name or an IP address, without a port; the service checks the shape (a port is refused). */
export const NodeAddress = Type.String({
  maxLength: 253,
  description: 'Host name or IP address, no port, at most 253 characters; empty means use status.observedAddress.',
});

export const CreateNode = Type.Object({
  name: NodeName,
  address: Type.Optional(NodeAddress),
}, { additionalProperties: false });

export const UpdateNode = Type.Object({
  address: NodeAddress,
}, { additionalProperties: false });

export const EnrollmentIssued = Type.Object({
  node: Node,
  enrollmentToken: Type.String({ description: 'One-time secret for `cairn-agent --enrollment-token`, shown only once.' }),
  enrollmentExpiresAt: DateTime,
});
