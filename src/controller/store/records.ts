import type { S3Location } from './s3/s3-client.js';
/** Stored shapes. Timestamps are ISO 8601 strings in both adapters so that they compare alike. */
import type { ResourceAmounts, StatusCondition } from '../domain/status.js';
import type { AdminState, ConnectionState } from '../schemas/nodes.js';

// The records of the capabilities added last, each in its own file; every record is still read from here.
export type { ScheduleDoc, ScheduleRunDoc } from './schedule-records.js';
export type { WebhookDeliveryDoc, WebhookDoc } from './webhook-records.js';

export interface UserDoc {
  _id: string;
  username: string;
  /** Lower-cased username: the unique index makes usernames case-insensitively unique. */
  usernameKey: string;
  email: string;
  emailKey: string;
  displayName: string;
  passwordHash: string;
  globalAdmin: boolean;
  globalPermissions: string[];
  passwordChangeRequired: boolean;
  /** The confirmed TOTP seed, sealed with the SecretBox (purpose `totp:<userId>`); present while TOTP is on. */
  totpSeal?: string;
  /** A seed enrolled but not yet confirmed with a code, sealed the same way. */
  totpPendingSeal?: string;
  /** The last time step a code was accepted for: codes of that step or an earlier one are refused (no replay). */
  totpLastStep?: number;
  /** SHA-256 of each unused recovery code. */
  totpRecoveryHashes?: string[];
  /**
   * Set for a user made by single sign-on: who the provider says it is (never matched by email),
   * and when the provider last vouched for the user and its groups (a sign-in or a session's refresh).
   */
  identity?: { issuer: string; subject: string; checkedAt?: string };
  createdAt: string;
  updatedAt: string;
}

export interface SessionDoc {
  /** SHA-256 of the session id; the id itself exists only in the client's cookie. */
  _id: string;
  userId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** Present for a session made by single sign-on: what re-validating it with the provider needs. */
  oidc?: SessionOidc;
}

export interface SessionOidc {
  /** The provider's refresh token, sealed (purpose `oidc:refresh`); absent when the provider issued none. */
  sealedRefreshToken?: string;
  /** When the provider last confirmed the session (sign-in, then each refresh). */
  checkedAt: string;
}

export interface ApiTokenDoc {
  _id: string;
  userId: string;
  name: string;
  /** SHA-256 of the whole token. */
  hash: string;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
  /** A scoped token's team permissions; absent: unscoped (all its owner may do). */
  permissions?: string[];
  /** A scoped token's teams; absent: every team of its owner. */
  teamIds?: string[];
}

export interface TeamDoc {
  _id: string;
  name: string;
  nameKey: string;
  /** Made by Cairn for itself (the network's proxy team), not by an administrator. */
  internal?: true;
  createdAt: string;
  updatedAt: string;
}

export interface RoleDoc {
  _id: string;
  name: string;
  nameKey: string;
  description: string;
  builtin: boolean;
  permissions: string[];
  createdAt: string;
  updatedAt: string;
}

export interface MembershipDoc {
  /** `<teamId>:<userId>`, so one user has at most one membership per team. */
  _id: string;
  teamId: string;
  userId: string;
  roleIds: string[];
  /**
   * A creation-ordered id (UUIDv7) given when the user joins: member lists page by it, so a user
   * who joins between pages is listed after the cursor even when its user id is older.
   */
  seq: string;
  createdAt: string;
  updatedAt: string;
}

export interface PasswordResetDoc {
  _id: string;
  userId: string;
  hash: string;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
  /** As an enrollment token's: 0 until the reset's one use sets it to 1, the version that use is written over. */
  uses?: number;
}

export interface NetworkDoc {
  _id: 'network';
  name: string;
  description: string;
  address: string;
  port: number;
  lobbyServerId?: string;
  /** Teams a global administrator admitted to the network: only their servers may join it (absent: none). */
  teamIds?: string[];
  createdAt: string;
  updatedAt: string;
}

/** Small singletons: the setup code's hash, and later capability settings. */
export interface SettingDoc {
  _id: string;
  value: Record<string, unknown>;
  updatedAt: string;
}

/**
 * Who may drive a resource (a Node with its servers, or the whole fleet) and under which term.
 * The term only grows: each new holder gets the previous term plus one, and every command it
 * sends or fenced write it makes carries it, so a holder that lost the lease is refused.
 */
export interface LeaseDoc {
  _id: string;
  holder: string;
  /** Where other Controllers and Agents reach the holder (its Agent-link address). */
  holderAddress: string;
  term: number;
  /** Epoch milliseconds by the store's clock of whoever wrote it last. */
  expiresAt: number;
  /** A Controller's own lease (`controller:<id>`) says where its API listens and since when it runs. */
  httpAddress?: string;
  startedAt?: string;
}

/** A runtime installation on a Node, as its Agent reported it. */
export interface NodeRuntimeDoc {
  name: string;
  version: string;
  major: number;
  path: string;
}

/** What the Controller last observed of a Node (kept so a restart shows the last known facts). */
export interface NodeStatusDoc {
  observedAddress?: string;
  connectionState: ConnectionState;
  agentVersion: string;
  hostname: string;
  os: string;
  arch: string;
  runtimeName: string;
  runtimeVersion: string;
  allocatable: ResourceAmounts;
  usage: ResourceAmounts;
  /** The host ports the Agent offers for game servers; absent until it first connects. */
  gamePorts?: import('../../shared/link/messages.js').PortRange;
  /** What the Node enforces on its games; absent until an Agent that reports it connects. */
  isolation?: NodeIsolationDoc;
  /** The Java installations the Agent found; absent until an Agent connects. */
  runtimes?: NodeRuntimeDoc[];
  lastHeartbeatAt?: string;
}

/** How a Node holds servers' disk limits; false: not at all (an Agent older than disk limits). */
export type DiskIsolation = 'quota' | 'accounting' | false;

/** What a Node enforces on its games; `pids` is absent from a record written before Agents reported it. */
export interface NodeIsolationDoc {
  users: boolean;
  filesystem: boolean;
  memory: boolean;
  cpu: boolean;
  pids?: boolean;
  /** `FIRST-LAST`, while games run as their own uids. */
  gameUids?: string;
  disk?: DiskIsolation;
  /** Absent from a record written before Agents reported it. */
  network?: boolean;
}

export interface NodeDoc {
  _id: string;
  name: string;
  /** Lower-cased name: Node names are unique regardless of case. */
  nameKey: string;
  /** Where other Nodes reach this one; empty means the observed address. */
  address: string;
  adminState: AdminState;
  enrolledAt?: string;
  /** Id (jti) of the one valid Node credential; an older or foreign credential is refused. */
  credentialId?: string;
  status: NodeStatusDoc;
  conditions: StatusCondition[];
  /** Set while a drain moves the Node's servers off it: a Controller that restarts carries it on. */
  drain?: { startedAt: string };
  /** The lease term of the Controller that last wrote the status (several Controllers on one store: fenced writes). */
  fenceTerm?: number;
  createdAt: string;
  updatedAt: string;
}

/** A one-time Node enrollment token, stored only as its SHA-256. */
export interface EnrollmentTokenDoc {
  _id: string;
  nodeId: string;
  hash: string;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
  /** SHA-256 of the enrollment attempt id that used the token: the same attempt may get its credential again. */
  attemptHash?: string;
  /** The credential id the use issued, so a retried attempt gets a credential equal in force. */
  credentialId?: string;
  /** 0 until the one use sets it to 1, the version that use is written over (one wins on FerretDB too); absent on older tokens. */
  uses?: number;
}

export type ActorKind = 'USER' | 'API_TOKEN' | 'AGENT' | 'SYSTEM';
export type AuditOutcome = 'SUCCESS' | 'DENIED' | 'FAILED';

export interface AuditEventRecord {
  id: number;
  occurredAt: string;
  actorKind: ActorKind;
  actorUserId?: string;
  action: string;
  targetKind: string;
  targetId: string;
  outcome: AuditOutcome;
  details: Record<string, unknown>;
}

export type NewAuditEvent = Omit<AuditEventRecord, 'id' | 'occurredAt'> & { occurredAt?: string };

export interface AuditQuery {
  actorUserId?: string;
  targetKind?: string;
  targetId?: string;
  action?: string;
  outcome?: string;
  /** Inclusive. */
  since?: string;
  /** Exclusive. */
  until?: string;
  /** Only events with a smaller id (the cursor). */
  beforeId?: number;
  limit: number;
}

/** Append-only, newest-first searchable log. */
export interface AuditLog {
  append(event: NewAuditEvent): Promise<AuditEventRecord>;
  search(query: AuditQuery): Promise<AuditEventRecord[]>;
  /** Deletes events older than `before` (an ISO time), as the retention setting asks; returns how many went. */
  prune(before: string): Promise<number>;
  close(): Promise<void>;
}

export interface ServerDoc {
  _id: string;
  name: string;
  /**
   * `teamId/lower-cased name` (domain/server-name.ts), unique: set on every server created since
   * names are unique per team. Servers stored before have none, so duplicates among them still load.
   */
  nameKey?: string;
  teamId: string;
  nodeId?: string;
  kind: import('../domain/server-spec.js').ServerKind;
  generation: number;
  desired: import('../domain/server-spec.js').ServerDesired;
  phase: import('../domain/server-spec.js').Phase;
  workflow?: import('../domain/server-spec.js').Workflow;
  failure?: string;
  failureReason?: 'INSTALL_FAILED' | 'WORKFLOW_FAILED';
  workflowFailure?: import('../domain/server-spec.js').WorkflowFailure;
  gamePort?: number;
  observed: import('../domain/server-spec.js').ServerObserved;
  /**
   * The `observed.startedAt` ('' when none was reported) of this proxy's or member's process that
   * was running when the forwarding secret was rotated: it holds the old secret until it restarts.
   */
  staleSecretProcess?: string;
  createdAt: string;
  updatedAt: string;
}

/** One plugin installed on one server (from the catalog, as a dependency, or an uploaded jar). */
export interface PluginInstallationDoc {
  _id: string;
  serverId: string;
  /** `<serverId> <pluginId>`: the unique index keeps one installation of a plugin per server. */
  key: string;
  pluginId: string;
  name: string;
  source: 'CATALOG' | 'UPLOAD';
  version: string;
  catalogVersionId?: string;
  verified: boolean;
  compatibilityConfirmed: boolean;
  dependency: boolean;
  /** Plugin ids the installed version requires; `requiredBy` of the others is derived from these. */
  requires: string[];
  /** Display name of the jar: the uploaded file's name, or `<slug>-<version>.jar` for the catalog. */
  fileName: string;
  sha256: string;
  sizeBytes: number;
  /** Where the Controller fetches a catalog jar from when it has no copy yet. */
  downloadUrl?: string;
  installedAt: string;
  updatedAt: string;
}

/** One plugin of the last good catalog; the denylist and sync facts live in the `catalog` setting. */
export interface CatalogPluginDoc {
  _id: string;
  plugin: import('../schemas/catalog-feed.js').FeedPlugin;
}

/** Where backups are kept: a directory on the Node that takes them, or the Controller's own store. */
export interface BackupDestinationDoc {
  _id: string;
  name: string;
  /** Lower-cased name: destination names are unique regardless of case. */
  nameKey: string;
  kind: 'NODE_DIRECTORY' | 'CONTROLLER' | 'S3';
  /** NODE_DIRECTORY: the absolute directory on the Node. */
  path?: string;
  /** S3: where the objects are; the secret access key sealed (SecretBox, purpose `s3:<destinationId>`). */
  s3?: S3Location & { secretAccessKeySealed: string };
  /** The destination made at the first start (`controller`); it cannot be deleted. */
  builtin: boolean;
  createdAt: string;
}

export type BackupTrigger = 'MANUAL' | 'SCHEDULED' | 'PRE_RESTORE' | 'PRE_MIGRATE' | 'PRE_UPDATE';
export type BackupState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** A plugin installation as a backup recorded it: what a restore installs again. */
export type RecordedPlugin = Omit<PluginInstallationDoc, '_id' | 'serverId' | 'key'>;

export interface BackupDoc {
  _id: string;
  serverId: string;
  /** The server's team, kept so a backup stays attributable once the server is gone. */
  teamId: string;
  destinationId: string;
  /** The Node that took it (a NODE_DIRECTORY backup lives there). */
  nodeId: string;
  /** Its content lives in its team's area of the destination (every backup since per-team deduplication; see backup-area.ts). */
  teamArea?: true;
  scheduleId?: string;
  trigger: BackupTrigger;
  state: BackupState;
  sizeBytes: number;
  storedBytes: number;
  fileCount: number;
  software: import('../domain/server-spec.js').ServerSoftware;
  plugins: RecordedPlugin[];
  error?: string;
  startedAt: string;
  finishedAt?: string;
}

export interface BackupScheduleDoc {
  _id: string;
  serverId: string;
  teamId: string;
  /** A 5-field cron expression, evaluated in UTC. */
  cron: string;
  destinationId: string;
  /** How many SCHEDULED backups of this schedule are kept. */
  retain: number;
  nextRunAt: string;
  lastRunAt?: string;
  createdAt: string;
}
