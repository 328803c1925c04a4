import Type, { type Static } from 'typebox';
import { ConditionSchema, DateTime, Int64, ResourceAmountsSchema, Uuid } from './common.js';

const reservationFields = { cpuMillis: Int64, memoryBytes: Int64 };

export const AdminState = Type.Union([Type.Literal('ENABLED'), Type.Literal('DISABLED'), Type.Literal('REVOKED')], {
  description: 'Set by administrators. REVOKED is final.',
});

export const ConnectionState = Type.Union([
  Type.Literal('AWAITING_ENROLLMENT'), Type.Literal('HEALTHY'), Type.Literal('DEGRADED'), Type.Literal('UNREACHABLE'),
], { description: 'DEGRADED: no heartbeat for 15 s, or the Agent reports pressure. UNREACHABLE: stream closed or no heartbeat for 45 s.' });

export type AdminState = Static<typeof AdminState>;
export type ConnectionState = Static<typeof ConnectionState>;

export const GamePorts = Type.Object({
  first: Type.Integer({ minimum: 1024, maximum: 65535 }),
  last: Type.Integer({ minimum: 1024, maximum: 65535 }),
}, { description: 'The host ports (inclusive) the Agent offers for game servers (`cairn-agent --game-ports`, default 25565-26564); each server gets the lowest one no server on the same host holds. Absent until the Agent first connects.' });

export const NodeIsolation = Type.Object({
  users: Type.Boolean({ description: 'Each game runs as its own uid and gid.' }),
  filesystem: Type.Boolean({ description: 'Each game sees only its own directory, its runtime and the system\'s libraries.' }),
  memory: Type.Boolean({ description: 'Each game\'s memory is capped at its resources.memoryBytes.' }),
  cpu: Type.Boolean({ description: 'Each game\'s CPU is capped at its resources.cpuMillis.' }),
  disk: Type.Optional(Type.Union([Type.Literal('quota'), Type.Literal('accounting'), Type.Literal(false)], {
    description: 'How each server\'s resources.diskBytes is held: `quota` (project quotas: the game\'s writes past it fail with ENOSPC or EDQUOT), '
      + '`accounting` (the Agent measures the server\'s files at least every 60 s and refuses uploads and plugin installs past it), false (not held: an older Agent).',
  })),
  pids: Type.Optional(Type.Boolean({ description: 'Each game may have at most 4096 tasks (processes and threads). Absent until an Agent that reports it connects.' })),
  gameUids: Type.Optional(Type.String({ pattern: '^\\d+-\\d+$', description: 'The uids (and the same gids) games get here, `FIRST-LAST` (`cairn-agent --game-uids`); present while users is true.' })),
  network: Type.Optional(Type.Boolean({ description: 'Each game has a network namespace of its own: reachable only on its ports, kept from the Node\'s loopback and local addresses, link-local and private ranges unless `cairn-agent --game-egress-allow` allows them. Absent from Agents older than this field.' })),
}, { description: 'What this Node enforces on its games (`cairn-agent --isolation`). A part missing under `auto` shows as the condition ISOLATION_UNAVAILABLE. Absent until the Agent first connects.' });

export const NodeRuntime = Type.Object({
  name: Type.String({ description: 'What it is: `java`.' }),
  version: Type.String({ description: 'As the installation prints it: `17.0.15`, `1.8.0_392`, `25`.' }),
  major: Type.Integer({ minimum: 1, description: 'The feature release: 8 for `1.8.0_392`, 17 for `17.0.15`.' }),
  path: Type.String({ description: 'The launcher\'s real path on the Node.' }),
}, { description: 'A Java installation the Agent found (`cairn-agent --java`, JAVA_HOME, /usr/lib/jvm, java on PATH). A server needing Java N starts on the lowest major ≥ N here; with none it gets the condition RUNTIME_MISSING.' });

export const NodeStatus = Type.Object({
  observedAddress: Type.Optional(Type.String({ description: 'IP address the Agent last connected from.' })),
  connectionState: ConnectionState,
  agentVersion: Type.String(),
  hostname: Type.String(),
  os: Type.String(),
  arch: Type.String(),
  runtimeName: Type.String(),
  runtimeVersion: Type.String(),
  allocatable: ResourceAmountsSchema,
  usage: ResourceAmountsSchema,
  gamePorts: Type.Optional(GamePorts),
  isolation: Type.Optional(NodeIsolation),
  runtimes: Type.Optional(Type.Array(NodeRuntime, { description: 'The runtimes games can run on here; absent until the Agent first connects.' })),
  lastHeartbeatAt: Type.Optional(DateTime),
  controllerId: Type.Optional(Type.String({ description: 'The Controller driving this Node now (the holder of its lease; see GET /cluster); absent while none does.' })),
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
  conditions: Type.Array(ConditionSchema),
  reserved: Type.Object(reservationFields, { description: 'Reserved by the servers on the Node, stopped ones included.' }),
  free: Type.Object(reservationFields, { description: 'Allocatable minus reserved (never below zero).' }),
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
