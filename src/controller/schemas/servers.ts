import Type from 'typebox';
import { ServerModpack } from './modpacks.js';
import { egressRuleFormat } from './validators.js';
import { ConditionSchema, DateTime, ResourceAmountsSchema, Uuid, pageQueryFields, PrintableName } from './common.js';
import { SftpAddress } from './sftp.js';

/**
 * The values of a server's state fields. domain/server-spec.ts names their types (Phase,
 * ServerDesiredState, ...), which the machine, the services and the store share.
 */
export const desiredStates = ['RUNNING', 'STOPPED', 'DELETED'] as const;
export const phases = ['PROVISIONING', 'READY', 'MIGRATING', 'RESTORING', 'UPDATING', 'DELETING', 'FAILED'] as const;
export const runtimeStates = ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'CRASHED'] as const;
/** How a migration's files go: Agent to Agent, or through the Controller when the Agents cannot reach each other. */
export const copyPaths = ['DIRECT', 'RELAYED'] as const;
export type CopyPath = (typeof copyPaths)[number];
export const convergenceValues = ['CONVERGED', 'IN_PROGRESS', 'DISCREPANCY', 'UNKNOWN'] as const;

export const SoftwareSchema = Type.Object({
  template: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9-]*$' }),
  version: Type.String({ minLength: 1, maxLength: 64 }),
  build: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

/** The smallest disk limit: below it a game's own install and first world would not fit. */
export const minDiskBytes = 64 * 2 ** 20;

export const ResourcesSchema = Type.Object({
  cpuMillis: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Thousandths of a CPU core.' }),
  memoryBytes: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  diskBytes: Type.Optional(Type.Integer({
    minimum: minDiskBytes, maximum: Number.MAX_SAFE_INTEGER,
    description: 'The most the server\'s files may hold, in bytes (at least 64 MiB); absent: no limit. Not a reservation: a change applies without a restart. '
      + 'Where the Node has project quotas (Node status.isolation.disk `quota`) the game\'s writes past it fail; elsewhere (`accounting`) uploads and plugin installs '
      + 'that would pass it are refused with insufficient_storage and the server shows DISK_QUOTA_EXCEEDED while past it.',
  })),
}, { additionalProperties: false });

export const RestartPolicySchema = Type.Object({
  maxRestarts: Type.Integer({ minimum: 0, maximum: 100, description: 'Automatic restarts allowed within the window; 0 disables them.' }),
  windowSeconds: Type.Integer({ minimum: 1, maximum: 86400 }),
}, { additionalProperties: false });

/** A server's `network.egressAllow` holds at most this many entries (each is a rule on its Node). */
const maxEgressAllow = 32;

export const ServerNetworkSchema = Type.Object({
  egressAllow: Type.Array(Type.String({ format: egressRuleFormat, maxLength: 24, description: 'CIDR[:PORT] (IPv4), e.g. 203.0.113.0/24 or 203.0.113.7:5432.' }), {
    maxItems: maxEgressAllow,
    description: 'Where the server\'s game may connect beyond the internet when it has a network of its own (Node status.isolation.network): '
      + 'its Node refuses games its own addresses, link-local addresses and private ranges unless allowed. Global administrators only; '
      + 'applied to a running game at once, without a restart. An empty list removes the server\'s entries.',
  }),
}, { additionalProperties: false });

export const SleepSchema = Type.Object({
  afterEmptySeconds: Type.Integer({ minimum: 10, maximum: 86400, description: 'How long the server\'s players online (by Server List Ping) must stay 0 before it sleeps.' }),
  wakeOnJoin: Type.Optional(Type.Boolean({ default: true, description: 'Whether a player\'s login on the sleeping port wakes it (the player is told it is starting and joins again). Default true.' })),
}, {
  additionalProperties: false,
  description: 'Stop the server when nobody plays and wake it when someone joins: it sleeps with `status.runtimeState` STOPPED and `status.sleeping` true while '
    + 'staying desired RUNNING and CONVERGED; its Agent answers its port meanwhile (status pings get its last status with 0 players). '
    + 'Only for templates with a player count (`status.protocol`); never while a player is online or a workflow runs. `null` turns it off.',
});

const SleepField = Type.Optional(Type.Union([SleepSchema, Type.Null()]));

export const ServerKindSchema = Type.Union([Type.Literal('GAME_SERVER'), Type.Literal('PROXY')]);

export const ServerName = PrintableName(64);

export const CreateServer = Type.Object({
  name: ServerName,
  teamId: Uuid,
  software: SoftwareSchema,
  resources: ResourcesSchema,
  nodeId: Type.Optional(Uuid),
  inNetwork: Type.Optional(Type.Boolean()),
  restartPolicy: Type.Optional(RestartPolicySchema),
  network: Type.Optional(ServerNetworkSchema),
  sleep: SleepField,
}, { additionalProperties: false });

/** `?dryRun=true` of POST and PATCH /servers: decide, and change nothing. */
export const DryRunQuery = Type.Object({
  dryRun: Type.Optional(Type.Boolean({
    description: 'Make every check of the real call (permissions, name, placement and capacity, the server\'s phase) and answer 200 with the server as it would be, storing nothing, telling no Node and writing no audit event. The id of a server a dry run would create is not kept.',
  })),
}, { additionalProperties: false });

export const UpdateServer = Type.Object({
  resources: Type.Optional(ResourcesSchema),
  inNetwork: Type.Optional(Type.Boolean({ description: 'Join or leave the network; a running server takes it at its next start.' })),
  network: Type.Optional(ServerNetworkSchema),
  sleep: SleepField,
}, { additionalProperties: false, minProperties: 1 });

const listItemFields = {
  id: Uuid,
  name: Type.String(),
  teamId: Uuid,
  nodeId: Type.Optional(Uuid),
  kind: ServerKindSchema,
  inNetwork: Type.Boolean(),
  desiredState: Type.Enum(desiredStates),
  generation: Type.Integer({ minimum: 1 }),
  phase: Type.Enum(phases),
  runtimeState: Type.Optional(Type.Enum(runtimeStates)),
  convergence: Type.Enum(convergenceValues),
  software: SoftwareSchema,
  resources: ResourcesSchema,
  gamePort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  conditionCount: Type.Integer({ minimum: 0 }),
  playersOnline: Type.Optional(Type.Integer({ minimum: 0, description: 'Players online as the server\'s last Server List Ping answered; absent when unknown.' })),
  sleeping: Type.Optional(Type.Literal(true, { description: 'Present while the server sleeps (`sleep`): stopped for want of players, woken by a join or a start.' })),
};

export const ServerListItem = Type.Object(listItemFields);

export const LastCrashSchema = Type.Object({
  at: DateTime,
  exitCode: Type.Optional(Type.Integer({ description: 'The exit code; absent when a signal ended the process or it never ran.' })),
  signal: Type.Optional(Type.String({ description: 'The signal that ended the process, e.g. SIGSEGV.' })),
  reason: Type.Optional(Type.String({ description: 'Why, when the Agent knows more than the exit: OOM_KILLED (the kernel ended the game at its memory limit, `resources.memoryBytes`).' })),
  restarts: Type.Optional(Type.Integer({
    minimum: 0,
    description: 'Automatic restarts (under `restartPolicy`) after this crash and the ones before it since the server was last started by an operator '
      + '(a start, a restart, a change that restarts, an acknowledged CRASH_LOOP); 0 when none followed yet. An Agent older than this field reports 0.',
  })),
  lastLines: Type.Array(Type.String(), { maxItems: 20, description: 'The last console lines before the crash (at most 20, each cut at 1,000 characters), oldest first. Console output: empty unless the caller holds `servers.console` (and in the answers of actions); CRASH_LOOP\'s message then names no lines either.' }),
}, {
  description: 'The server\'s last crash since its Agent started: how the process ended and what it printed last. '
    + 'Relayed by the Agent and held in the Controller\'s memory only (console output is never stored): absent after a Controller restart until the Agent reports again, and after an Agent restart.',
});

export const PlayersSchema = Type.Object({
  online: Type.Integer({ minimum: 0 }),
  max: Type.Integer({ minimum: 0 }),
}, {
  description: 'What the server answered its Agent\'s last Server List Ping (every 10 s, templates with `status: {protocol: "minecraft-slp"}`): '
    + 'players online and the most it takes. Absent when it is not running or did not answer.',
});

export const ServerDetail = Type.Object({
  ...listItemFields,
  observedGeneration: Type.Integer({ minimum: 0 }),
  ports: Type.Array(Type.Object({ name: Type.String(), protocol: Type.Literal('TCP'), hostPort: Type.Integer() })),
  restartPolicy: RestartPolicySchema,
  sleep: Type.Optional(Type.Object({ afterEmptySeconds: SleepSchema.properties.afterEmptySeconds, wakeOnJoin: Type.Boolean() }, { description: 'Present when the server sleeps when empty (`sleep` on create and PATCH).' })),
  network: Type.Optional(Type.Object(ServerNetworkSchema.properties, { additionalProperties: false, description: 'Present while the server has `egressAllow` entries.' })),
  conditions: Type.Array(ConditionSchema),
  acknowledgedConditions: Type.Array(Type.String()),
  markers: Type.Array(Type.Literal('RESTART_PENDING')),
  status: Type.Object({
    runtimeState: Type.Optional(Type.Enum(runtimeStates)),
    usage: ResourceAmountsSchema,
    conditions: Type.Array(ConditionSchema),
    startedAt: Type.Optional(DateTime),
    pid: Type.Optional(Type.Integer({ minimum: 1, description: 'The game\'s process id on its Node while it starts or runs (inside its box: the game itself); absent otherwise.' })),
    lastCrash: Type.Optional(LastCrashSchema),
    players: Type.Optional(PlayersSchema),
    sleeping: Type.Optional(Type.Literal(true, { description: 'Present while the server sleeps: its game is stopped for want of players (runtimeState STOPPED) and its Agent answers its port.' })),
    sleepingSince: Type.Optional(DateTime),
  }),
  modpack: Type.Optional(ServerModpack),
  workflow: Type.Optional(Type.Object({
    kind: Type.String(), startedAt: DateTime, step: Type.String(),
    targetNodeId: Type.Optional(Uuid),
    copyPath: Type.Optional(Type.Enum(copyPaths, {
      description: 'MIGRATE: how the files are copied, once the first copy began: `DIRECT` (the target Agent pulls them from the source) or `RELAYED` (through the Controller, when the Agents cannot reach each other).',
    })),
  })),
  sftp: Type.Optional(SftpAddress),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const ServerListQuery = Type.Object({
  ...pageQueryFields,
  teamId: Type.Optional(Uuid),
  nodeId: Type.Optional(Uuid),
  convergence: Type.Optional(Type.Enum(convergenceValues)),
  kind: Type.Optional(ServerKindSchema),
  inNetwork: Type.Optional(Type.Boolean({ description: 'Members (true) or the others (false), by desired membership.' })),
}, { additionalProperties: false });

export const ServerParams = Type.Object({ serverId: Uuid }, { additionalProperties: false });
export const ConditionParams = Type.Object({
  serverId: Uuid,
  condition: Type.String({ minLength: 1, maxLength: 200, description: 'A condition\'s id or its reason.' }),
}, { additionalProperties: false });
