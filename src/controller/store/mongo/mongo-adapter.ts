import { MongoClient, type Db } from 'mongodb';
import type { Clock } from '../../../shared/clock.js';
import type { Collection, IndexSpec } from '../collection.js';
import type { AuditLog } from '../records.js';
import type { StoreAdapter } from '../repositories.js';
import { MongoAuditLog } from './mongo-audit-log.js';
import { MongoCollection } from './mongo-collection.js';

/** MongoDB through the official driver; the database is the URI's path, `cairn` when it has none. */
export class MongoAdapter implements StoreAdapter {
  readonly kind = 'mongodb' as const;

  private constructor(private readonly client: MongoClient, private readonly db: Db, private readonly clock: Clock) {}

  static async open(uri: string, clock: Clock): Promise<MongoAdapter> {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    const path = new URL(uri.replace(/^mongodb(\+srv)?:/, 'http:')).pathname.replace(/^\//, '');
    return new MongoAdapter(client, client.db(path || 'cairn'), clock);
  }

  async openCollection<T extends { _id: string }>(name: string, indexes: IndexSpec[]): Promise<Collection<T>> {
    const collection = this.db.collection(name);
    for (const index of indexes) {
      await collection.createIndex({ [index.field]: 1 }, { unique: index.unique ?? false, sparse: index.sparse ?? false });
    }
    return new MongoCollection<T>(collection);
  }

  async openAuditLog(): Promise<AuditLog> {
    return MongoAuditLog.open(this.db, this.clock);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
