import { MongoServerError, type Collection as DriverCollection, type Document } from 'mongodb';
import { DuplicateKeyError, type Collection, type Filter, type FindOptions, type Shared } from '../collection.js';

function mapError(e: unknown): never {
  if (e instanceof MongoServerError && e.code === 11000) {
    const keyPattern = (e as MongoServerError & { keyPattern?: Record<string, unknown> }).keyPattern;
    throw new DuplicateKeyError(Object.keys(keyPattern ?? { _id: 1 })[0] ?? '_id');
  }
  throw e;
}

export class MongoCollection<T extends { _id: string }> implements Collection<T> {
  constructor(private readonly c: DriverCollection<Document>) {}

  async insert(doc: T): Promise<void> {
    try {
      await this.c.insertOne(doc as Document);
    } catch (e) {
      mapError(e);
    }
  }

  async findById(id: string): Promise<T | null> {
    return (await this.c.findOne({ _id: id as never })) as T | null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.c.findOne(filter)) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.c.find(filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()) as unknown as T[];
  }

  /** The driver's documents are fresh for every call: nothing to share. */
  async findShared(filter: Filter, options: FindOptions = {}): Promise<Shared<T>[]> {
    return (await this.find(filter, options)) as Shared<T>[];
  }

  async count(filter: Filter): Promise<number> {
    return await this.c.countDocuments(filter);
  }

  async update(filter: Filter, set: Partial<T>, unset: string[] = []): Promise<number> {
    const update: Document = {};
    if (Object.keys(set).length > 0) update.$set = set;
    if (unset.length > 0) update.$unset = Object.fromEntries(unset.map((k) => [k, '']));
    if (Object.keys(update).length === 0) return this.count(filter);
    try {
      return (await this.c.updateMany(filter, update)).matchedCount;
    } catch (e) {
      mapError(e);
    }
  }

  async replace(filter: Filter, doc: T): Promise<boolean> {
    try {
      return (await this.c.replaceOne(filter, doc)).matchedCount > 0;
    } catch (e) {
      mapError(e);
    }
  }

  async delete(filter: Filter): Promise<number> {
    return (await this.c.deleteMany(filter)).deletedCount;
  }
}
