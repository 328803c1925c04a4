import { posix } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, invalidRequest, notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { BackupDestinationDoc } from '../../store/records.js';
import { S3BlobStore } from '../../store/s3/s3-blob-store.js';
import { s3ClientFor } from '../../store/s3/s3-client.js';
import type { Access } from '../identity/access.js';
import { openSealed } from '../../security/sealed-secret.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { destinationView } from './backup-views.js';
import { checkS3Access } from './s3-access-check.js';
import { s3Fields, s3SecretPurpose, s3Settings, type S3Input } from './s3-settings.js';

export const builtinDestinationName = 'controller';

/** A new key for an S3 destination (rotation). */
export interface UpdateDestinationInput {
  accessKeyId?: string;
  secretAccessKey: string;
}

/**
 * What a cached client or store was opened with: a destination whose key changed (here or on
 * another Controller of the same store) gets new ones, while work under way keeps the old.
 */
const openedWith = (destination: BackupDestinationDoc) => `${destination._id}\0${destination.s3?.accessKeyId ?? ''}\0${destination.s3?.secretAccessKeySealed ?? ''}`;

export interface CreateDestinationInput extends S3Input {
  name: string;
  kind: BackupDestinationDoc['kind'];
  path?: string;
}

/** Whether the Controller itself reads and writes the destination's store (every kind but NODE_DIRECTORY). */
export const heldByController = (destination: Pick<BackupDestinationDoc, 'kind'>) => destination.kind !== 'NODE_DIRECTORY';

/** A NODE_DIRECTORY path: absolute, normal (no `.`, `..` or empty segments), no NUL; refused otherwise. */
function checkPath(path: string): string {
  if (!path.startsWith('/')) throw invalidRequest('body.path: must be an absolute directory on the Node.');
  if (path.includes('\0')) throw invalidRequest('body.path: must not contain NUL.');
  const normal = posix.normalize(path).replace(/(.)\/$/, '$1');
  if (normal !== path.replace(/(.)\/$/, '$1') || path.split('/').some((p) => p === '..' || p === '.')) {
    throw invalidRequest('body.path: must be a normal absolute path (no "." or ".." segments, no repeated "/").');
  }
  if (normal === '/') throw invalidRequest('body.path: the root directory cannot hold backups.');
  return normal;
}

/**
 * Where backups go. A CONTROLLER destination named `controller` exists from the first start (the
 * default of POST /servers/{id}/backups); others are added by global administrators.
 */
export class BackupDestinations {
  private readonly stores = new Map<string, BlobStore>();
  /** One client per S3 destination, holding its opened secret in memory only. */
  private readonly s3Clients = new Map<string, S3Client>();

  constructor(private readonly deps: ServiceDeps, private readonly access: Access) {}

  /** Creates the built-in destination once; later starts find it. */
  async ensureBuiltin(): Promise<void> {
    if (await this.deps.repos.backupDestinations.findOne({ builtin: true })) return;
    // At the first start there are no users, so no administrator's destination can hold the name yet.
    await this.deps.repos.backupDestinations.insert({
      _id: this.deps.ids.next(), name: builtinDestinationName, nameKey: builtinDestinationName, kind: 'CONTROLLER', builtin: true, createdAt: nowIso(this.deps),
    });
  }

  async builtin(): Promise<BackupDestinationDoc> {
    const doc = await this.deps.repos.backupDestinations.findOne({ builtin: true });
    if (!doc) throw notFound('backup destination');
    return doc;
  }

  /** The destination a request names (`field` is where, for the problem's detail), or the built-in one. */
  async resolve(destinationId: string | undefined, field = 'body.destinationId'): Promise<BackupDestinationDoc> {
    if (destinationId === undefined) return this.builtin();
    const doc = await this.deps.repos.backupDestinations.findById(destinationId);
    if (!doc) throw invalidRequest(`${field}: no backup destination ${destinationId}.`);
    return doc;
  }

  get(destinationId: string): Promise<BackupDestinationDoc | null> {
    return this.deps.repos.backupDestinations.findById(destinationId);
  }

  /** The content-addressed store of a destination the Controller holds: a team's area of it, or its root (backups older than areas). */
  storeOf(destination: BackupDestinationDoc, teamId: string | undefined): BlobStore {
    const key = `${openedWith(destination)}/${teamId ?? ''}`;
    let store = this.stores.get(key);
    if (!store) this.stores.set(key, (store = this.openStore(destination, teamId)));
    return store;
  }

  private openStore(destination: BackupDestinationDoc, teamId: string | undefined): BlobStore {
    if (!destination.s3) return this.deps.repos.blobStore(destination._id, teamId);
    const { bucket, prefix } = destination.s3;
    return new S3BlobStore(this.s3ClientOf(destination, destination.s3), { bucket, prefix, teamId });
  }

  private s3ClientOf(destination: BackupDestinationDoc, s3: NonNullable<BackupDestinationDoc['s3']>): S3Client {
    let client = this.s3Clients.get(openedWith(destination));
    if (!client) {
      const secret = openSealed(this.deps.secrets, s3.secretAccessKeySealed, s3SecretPurpose(destination._id),
        'Start the Controller with the key file it was sealed with, or give the destination its secret access key again (PATCH /backup-destinations/{id}).');
      this.s3Clients.set(openedWith(destination), (client = s3ClientFor(s3, secret)));
    }
    return client;
  }

  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    this.access.requireGlobalAdmin(caller);
    const result = await paginate<BackupDestinationDoc, string>(
      page,
      (after, limit) => this.deps.repos.backupDestinations.find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit }),
      (d) => d._id,
    );
    return { ...result, items: result.items.map(destinationView) };
  }

  async create(caller: Caller, input: CreateDestinationInput, audit: AuditScope) {
    // The secret access key stays out of the audit record: only where the objects go is kept.
    const { secretAccessKey: _secret, ...described } = input;
    audit.detail(described);
    this.access.requireGlobalAdmin(caller);
    if (input.kind !== 'NODE_DIRECTORY' && input.path !== undefined) throw invalidRequest('body.path: only a NODE_DIRECTORY destination has a path.');
    if (input.kind === 'NODE_DIRECTORY' && input.path === undefined) throw invalidRequest('body.path: a NODE_DIRECTORY destination needs the absolute directory on its Nodes.');
    const stray = input.kind === 'S3' ? undefined : s3Fields.find((f) => input[f] !== undefined);
    if (stray) throw invalidRequest(`body.${stray}: only an S3 destination has it.`);
    const id = this.deps.ids.next();
    let s3: BackupDestinationDoc['s3'];
    if (input.kind === 'S3') {
      const { location, secretAccessKey } = s3Settings(input);
      if (await this.deps.repos.backupDestinations.findOne({ nameKey: input.name.toLowerCase() })) throw conflict(`A backup destination named ${input.name} exists already.`);
      await checkS3Access(location, secretAccessKey);
      s3 = { ...location, secretAccessKeySealed: this.deps.secrets.seal(secretAccessKey, s3SecretPurpose(id)) };
    }
    const doc: BackupDestinationDoc = {
      _id: id, name: input.name, nameKey: input.name.toLowerCase(), kind: input.kind,
      ...(input.path !== undefined ? { path: checkPath(input.path) } : {}), ...(s3 ? { s3 } : {}), builtin: false, createdAt: nowIso(this.deps),
    };
    try {
      await this.deps.repos.backupDestinations.insert(doc);
    } catch (e) {
      if (isDuplicateKey(e)) throw conflict(`A backup destination named ${input.name} exists already.`);
      throw e;
    }
    audit.target(doc._id);
    return destinationView(doc);
  }

  /**
   * Gives an S3 destination a new key (rotation), checked like at creation before it replaces the
   * old one; backups under way finish with the key they began with.
   */
  async update(caller: Caller, destinationId: string, input: UpdateDestinationInput, audit: AuditScope) {
    audit.target(destinationId);
    this.access.requireGlobalAdmin(caller);
    const doc = await this.deps.repos.backupDestinations.findById(destinationId);
    if (!doc) throw notFound('backup destination');
    if (!doc.s3) throw invalidRequest('body.secretAccessKey: only an S3 destination has a key to change.');
    const { secretAccessKeySealed: _old, ...location } = doc.s3;
    const accessKeyId = input.accessKeyId ?? location.accessKeyId;
    audit.detail({ name: doc.name, accessKeyId });
    await checkS3Access({ ...location, accessKeyId }, input.secretAccessKey);
    const s3 = { ...location, accessKeyId, secretAccessKeySealed: this.deps.secrets.seal(input.secretAccessKey, s3SecretPurpose(destinationId)) };
    if (await this.deps.repos.backupDestinations.update({ _id: destinationId }, { s3 }) === 0) throw notFound('backup destination');
    this.forget(doc);
    return destinationView({ ...doc, s3 });
  }

  /** Drops what was opened for `doc` (never closing a client: work under way may still use it). */
  private forget(doc: BackupDestinationDoc): void {
    const prefix = `${openedWith(doc)}/`;
    for (const key of this.stores.keys()) if (key.startsWith(prefix)) this.stores.delete(key);
    this.s3Clients.delete(openedWith(doc));
  }

  async delete(caller: Caller, destinationId: string, audit: AuditScope): Promise<void> {
    audit.target(destinationId);
    this.access.requireGlobalAdmin(caller);
    const doc = await this.deps.repos.backupDestinations.findById(destinationId);
    if (!doc) throw notFound('backup destination');
    audit.detail({ name: doc.name, kind: doc.kind });
    if (doc.builtin) throw conflict('The built-in destination is where backups go by default; it cannot be deleted.');
    const backups = await this.deps.repos.backups.count({ destinationId });
    // Backup schedules, and server schedules with a backup task to it.
    const schedules = await this.deps.repos.backupSchedules.count({ destinationId }) + await this.deps.repos.schedules.count({ 'tasks.destinationId': destinationId });
    if (backups > 0 || schedules > 0) throw conflict(`The destination is in use by ${backups} backup(s) and ${schedules} schedule(s); delete those first.`);
    await this.deps.repos.backupDestinations.delete({ _id: destinationId });
    this.s3Clients.get(openedWith(doc))?.destroy();
    this.forget(doc);
  }
}
