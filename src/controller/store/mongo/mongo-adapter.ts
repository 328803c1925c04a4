import { GridFSBucket, MongoClient, type Db } from 'mongodb';
import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { Clock } from '../../../shared/clock.js';
import type { Collection, IndexSpec } from '../collection.js';
import type { AuditLog } from '../records.js';
import type { StoreAdapter } from '../repositories.js';
import { GridFsBlobStore } from './gridfs-blob-store.js';
import { MongoAuditLog } from './mongo-audit-log.js';
import { majorityCollections, majorityConcerns, mongoClientOptions } from './mongo-client-options.js';
import { MongoCollection } from './mongo-collection.js';
import { reconcileIndexes, type IndexListing } from './mongo-indexes.js';
import { VersionClaims } from './version-claims.js';

/**
 * The database named by the URI's path, `cairn` when it has none. Read with a pattern rather than
 * `URL`: a replica-set URI lists several hosts (`mongodb://h1,h2/db`), which `URL` refuses.
 */
export function databaseNameOf(uri: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/.exec(uri)?.[1] ?? '';
  return decodeURIComponent(path) || 'cairn';
}

/** MongoDB through the official driver, in the database the URI names; backups kept by the Controller in GridFS. */
export class MongoAdapter implements StoreAdapter {
  readonly kind = 'mongodb' as const;
  private bucket?: GridFSBucket;
  private artifacts?: GridFSBucket;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly listing: IndexListing,
    private readonly claims: VersionClaims | undefined,
  ) {}

  static async open(uri: string, clock: Clock): Promise<MongoAdapter> {
    const client = new MongoClient(uri, mongoClientOptions);
    await client.connect();
    const db = client.db(databaseNameOf(uri));
    // FerretDB names itself in buildInfo. It lists indexes without `sparse`, which would otherwise rebuild them at every
    // start, and checks a write's filter apart from the write, so writes over a version claim it first (version-claims.ts).
    const ferretdb = 'ferretdbVersion' in (await db.command({ buildInfo: 1 }));
    const claims = ferretdb ? new VersionClaims(db.collection('versionClaims'), clock) : undefined;
    await claims?.trim();
    return new MongoAdapter(client, db, clock, { reportsSparse: !ferretdb }, claims);
  }

  async openCollection<T extends { _id: string }>(name: string, indexes: IndexSpec[]): Promise<Collection<T>> {
    const collection = this.db.collection(name, majorityCollections.has(name) ? majorityConcerns : {});
    await reconcileIndexes(collection, indexes, this.listing);
    return new MongoCollection<T>(collection, indexes, this.claims);
  }

  async openAuditLog(): Promise<AuditLog> {
    return MongoAuditLog.open(this.db, this.clock);
  }

  openBlobStore(destinationId: string, teamId?: string): BlobStore {
    this.bucket ??= new GridFSBucket(this.db, { bucketName: 'backups' });
    return new GridFsBlobStore(this.bucket, destinationId, teamId);
  }

  /** Uploaded plugin jars, in GridFS so every Controller on the database finds them (bucket `artifacts`). */
  openSharedArtifacts(): BlobStore {
    this.artifacts ??= new GridFSBucket(this.db, { bucketName: 'artifacts' });
    return new GridFsBlobStore(this.artifacts, 'jars');
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  /**
   * The server's clock from `hello` (`localTime`), moved on by half the round trip: MongoDB and
   * FerretDB both answer it, where an update pipeline's `$$NOW` is MongoDB's alone.
   */
  async serverTime(): Promise<number> {
    const sent = Date.now();
    const hello = await this.db.command({ hello: 1 });
    const local = hello.localTime as Date | undefined;
    const back = Date.now();
    return local instanceof Date ? local.getTime() + Math.round((back - sent) / 2) : back;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
