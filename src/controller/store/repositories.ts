import type { BlobStore } from '../../shared/backup/blob-store.js';
import { ByIdCache } from './by-id-cache.js';
import { ChangeFeedStore, feedBatchIndexes, type FeedBatchDoc, type FeedWriterDoc } from './change-feed.js';
import type { Collection, IndexSpec } from './collection.js';
import type {
  ApiTokenDoc, AuditLog, LeaseDoc, EnrollmentTokenDoc, NodeDoc, ServerDoc, MembershipDoc, NetworkDoc, PasswordResetDoc, RoleDoc, SessionDoc, SettingDoc, TeamDoc, UserDoc,
} from './records.js';
import type { CatalogPluginDoc, PluginInstallationDoc } from './records.js';
import type { BackupDestinationDoc, BackupDoc, BackupScheduleDoc } from './records.js';
import type { DestinationClaimDoc } from './destination-claim-records.js';
import type { WebhookDeliveryDoc, WebhookDoc } from './records.js';
import type { ScheduleDoc, ScheduleRunDoc } from './records.js';
import type { SshKeyDoc } from './ssh-key-records.js';

/**
 * Disk kept free for audit events, where the store's disk is the Controller's (embedded store):
 * see embedded/audit-reserve.ts. MongoDB's disk is its own: there the room is always "held".
 */
export interface AuditRoom {
  /** Throws a StoreFullError when the room cannot be set aside. */
  hold(): Promise<void>;
  /** Frees the room for an event that did not fit; false when there was none to free. */
  release(): Promise<boolean>;
}

const noRoomKept: AuditRoom = { hold: () => Promise.resolve(), release: () => Promise.resolve(false) };

/** What an adapter provides; everything above it is adapter-agnostic. */
export interface StoreAdapter {
  readonly kind: 'embedded' | 'mongodb';
  openCollection<T extends { _id: string }>(name: string, indexes: IndexSpec[]): Promise<Collection<T>>;
  openAuditLog(): Promise<AuditLog>;
  readonly auditRoom?: AuditRoom;
  /** The content-addressed store of one CONTROLLER backup destination (files or GridFS). */
  openBlobStore(destinationId: string, teamId?: string): BlobStore;
  /** Where uploaded jars live when the data dir is not shared between Controllers; undefined when it is the store. */
  openSharedArtifacts(): BlobStore | undefined;
  /** Throws when the store cannot be reached (readiness). */
  ping(): Promise<void>;
  /** The store's own clock in epoch milliseconds, which every Controller of one store judges lease expiry by. */
  serverTime(): Promise<number>;
  close(): Promise<void>;
}

/** The repository layer: every collection the Controller keeps, with its indexes declared once. */
export interface Repositories {
  readonly kind: StoreAdapter['kind'];
  users: Collection<UserDoc>;
  sessions: Collection<SessionDoc>;
  apiTokens: Collection<ApiTokenDoc>;
  teams: Collection<TeamDoc>;
  roles: Collection<RoleDoc>;
  memberships: Collection<MembershipDoc>;
  passwordResets: Collection<PasswordResetDoc>;
  network: Collection<NetworkDoc>;
  settings: Collection<SettingDoc>;
  nodes: Collection<NodeDoc>;
  enrollmentTokens: Collection<EnrollmentTokenDoc>;
  servers: Collection<ServerDoc>;
  pluginInstallations: Collection<PluginInstallationDoc>;
  catalogPlugins: Collection<CatalogPluginDoc>;
  backupDestinations: Collection<BackupDestinationDoc>;
  backups: Collection<BackupDoc>;
  backupSchedules: Collection<BackupScheduleDoc>;
  /** Claims on shared destinations by the Controllers sharing the store: used on MongoDB only. */
  destinationClaims: Collection<DestinationClaimDoc>;
  leases: Collection<LeaseDoc>;
  webhooks: Collection<WebhookDoc>;
  webhookDeliveries: Collection<WebhookDeliveryDoc>;
  schedules: Collection<ScheduleDoc>;
  scheduleRuns: Collection<ScheduleRunDoc>;
  sshKeys: Collection<SshKeyDoc>;
  audit: AuditLog;
  auditRoom: AuditRoom;
  /** Server changes shared between Controllers on one MongoDB database; none on the embedded store (one Controller). */
  serverFeed: ChangeFeedStore | undefined;
  /** A destination's content-addressed store: its root area, or a team's area when `teamId` is given. */
  blobStore(destinationId: string, teamId?: string): BlobStore;
  sharedArtifacts(): BlobStore | undefined;
  ping(): Promise<void>;
  serverTime(): Promise<number>;
  close(): Promise<void>;
}

export const collectionIndexes: Record<Exclude<keyof Repositories, 'kind' | 'audit' | 'auditRoom' | 'serverFeed' | 'blobStore' | 'sharedArtifacts' | 'ping' | 'serverTime' | 'close'>, IndexSpec[]> = {
  users: [{ field: 'usernameKey', unique: true }, { field: 'emailKey', unique: true }, { field: 'identity.subject', sparse: true }],
  sessions: [{ field: 'userId' }],
  apiTokens: [{ field: 'hash', unique: true }, { field: 'userId' }],
  teams: [{ field: 'nameKey', unique: true }],
  roles: [{ field: 'nameKey', unique: true }],
  memberships: [{ field: 'teamId' }, { field: 'userId' }],
  passwordResets: [{ field: 'hash', unique: true }, { field: 'userId' }],
  network: [],
  settings: [],
  nodes: [{ field: 'nameKey', unique: true }],
  enrollmentTokens: [{ field: 'hash', unique: true }, { field: 'nodeId' }],
  servers: [
    { field: 'teamId' }, { field: 'nodeId' }, { field: 'nameKey', unique: true, sparse: true },
    { field: 'workflow.removeOnNodeId', sparse: true }, { field: 'workflow.targetNodeId', sparse: true }, { field: 'workflow.sourceNodeId', sparse: true },
  ],
  pluginInstallations: [{ field: 'serverId' }, { field: 'key', unique: true }, { field: 'sha256' }],
  catalogPlugins: [],
  backupDestinations: [{ field: 'nameKey', unique: true }],
  backups: [{ field: 'serverId' }, { field: 'destinationId' }, { field: 'scheduleId' }, { field: 'state' }],
  backupSchedules: [{ field: 'serverId' }, { field: 'destinationId' }],
  destinationClaims: [{ field: 'destinationId' }],
  leases: [],
  webhooks: [{ field: 'teamId', sparse: true }],
  // The deliveries list pages by webhook; a start resumes every PENDING one.
  webhookDeliveries: [{ field: 'webhookId' }, { field: 'state' }],
  schedules: [{ field: 'serverId' }, { field: 'teamId' }],
  // A run is claimed by inserting it: the unique key is what keeps a minute from running twice.
  scheduleRuns: [{ field: 'scheduleId' }, { field: 'claimKey', unique: true }, { field: 'result' }],
  sshKeys: [{ field: 'userId' }, { field: 'fingerprint' }],
};

export async function openRepositories(adapter: StoreAdapter): Promise<Repositories> {
  const open = <T extends { _id: string }>(name: keyof typeof collectionIndexes) =>
    adapter.openCollection<T>(name, collectionIndexes[name]);
  // Every signed-in request reads its session and its user by id; only the embedded store's files belong to this process alone.
  const byId = <T extends { _id: string }>(collection: Collection<T>) => (adapter.kind === 'embedded' ? new ByIdCache(collection) : collection);
  return {
    kind: adapter.kind,
    users: byId(await open<UserDoc>('users')),
    sessions: byId(await open<SessionDoc>('sessions')),
    apiTokens: await open<ApiTokenDoc>('apiTokens'),
    teams: await open<TeamDoc>('teams'),
    roles: await open<RoleDoc>('roles'),
    memberships: await open<MembershipDoc>('memberships'),
    passwordResets: await open<PasswordResetDoc>('passwordResets'),
    network: await open<NetworkDoc>('network'),
    settings: await open<SettingDoc>('settings'),
    nodes: await open<NodeDoc>('nodes'),
    enrollmentTokens: await open<EnrollmentTokenDoc>('enrollmentTokens'),
    servers: await open<ServerDoc>('servers'),
    pluginInstallations: await open<PluginInstallationDoc>('pluginInstallations'),
    catalogPlugins: await open<CatalogPluginDoc>('catalogPlugins'),
    backupDestinations: await open<BackupDestinationDoc>('backupDestinations'),
    backups: await open<BackupDoc>('backups'),
    backupSchedules: await open<BackupScheduleDoc>('backupSchedules'),
    destinationClaims: await open<DestinationClaimDoc>('destinationClaims'),
    leases: await open<LeaseDoc>('leases'),
    webhooks: await open<WebhookDoc>('webhooks'),
    webhookDeliveries: await open<WebhookDeliveryDoc>('webhookDeliveries'),
    schedules: await open<ScheduleDoc>('schedules'),
    scheduleRuns: await open<ScheduleRunDoc>('scheduleRuns'),
    sshKeys: await open<SshKeyDoc>('sshKeys'),
    audit: await adapter.openAuditLog(),
    auditRoom: adapter.auditRoom ?? noRoomKept,
    serverFeed: adapter.kind === 'mongodb'
      ? new ChangeFeedStore(await adapter.openCollection<FeedBatchDoc>('serverFeed', feedBatchIndexes), await adapter.openCollection<FeedWriterDoc>('serverFeedWriters', []))
      : undefined,
    blobStore: (destinationId, teamId) => adapter.openBlobStore(destinationId, teamId),
    sharedArtifacts: () => adapter.openSharedArtifacts(),
    ping: () => adapter.ping(),
    serverTime: () => adapter.serverTime(),
    close: () => adapter.close(),
  };
}
