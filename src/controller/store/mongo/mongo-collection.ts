import type { Collection as DriverCollection, Document } from 'mongodb';
import { DuplicateKeyError, versionFilter, type Collection, type Filter, type FindOptions, type IndexSpec, type Shared, type Version } from '../collection.js';
import { assertDefinedFilter, undefinedFieldsOf, withoutUndefined } from '../document-rules.js';
import { duplicateFieldOf, isDuplicate, mapDriverError, singleIdOf } from './mongo-documents.js';
import type { VersionClaims } from './version-claims.js';

/** The driver's update of `set` (fields set to undefined are removed) and `unset`. */
function updateOf(set: object, unset: string[] = []): Document {
  const update: Document = {};
  const defined = withoutUndefined(set as Document);
  if (Object.keys(defined).length > 0) update.$set = defined;
  const removed = [...new Set([...unset, ...undefinedFieldsOf(set)])];
  if (removed.length > 0) update.$unset = Object.fromEntries(removed.map((k) => [k, '']));
  return update;
}

/** Runs a driver call, turning its errors into the store's (duplicate key, store unavailable). */
async function driver<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (e) {
    mapDriverError(e);
  }
}

/**
 * A collection through the official driver. Writes that select one document by `_id` use
 * `updateOne`/`deleteOne`, which the driver retries across a primary step-down (the `Many` forms
 * are never retried). Documents lose their `undefined` fields and filters refuse them, so both
 * adapters store and match the same things. With `claims` (FerretDB), writes over a version claim
 * it first; MongoDB checks a filter and writes in one step, so there the filter alone suffices.
 */
export class MongoCollection<T extends { _id: string }> implements Collection<T> {
  private readonly uniqueFields: string[];

  constructor(private readonly c: DriverCollection<Document>, indexes: IndexSpec[] = [], private readonly claims?: VersionClaims) {
    this.uniqueFields = indexes.filter((i) => i.unique).map((i) => i.field);
  }

  async insert(doc: T): Promise<void> {
    const stored = withoutUndefined(doc) as Document;
    try {
      await this.c.insertOne(stored);
    } catch (e) {
      if (isDuplicate(e) && duplicateFieldOf(e) === undefined) throw new DuplicateKeyError(await this.clashingField(stored));
      mapDriverError(e);
    }
  }

  /**
   * For a server that does not say which value was taken (FerretDB on an insert): the first unique
   * field another document holds the same value in, else `_id`.
   */
  private async clashingField(doc: Document): Promise<string> {
    for (const field of this.uniqueFields) {
      if (doc[field] === undefined) continue;
      const other = await this.c.findOne({ [field]: doc[field] as unknown, _id: { $ne: doc._id as never } }, { projection: { _id: 1 } }).catch(() => null);
      if (other) return field;
    }
    return '_id';
  }

  async findById(id: string): Promise<T | null> {
    return (await driver(() => this.c.findOne({ _id: id as never }))) as T | null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    assertDefinedFilter(filter);
    return (await driver(() => this.c.findOne(filter))) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    assertDefinedFilter(filter);
    let cursor = this.c.find(filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return (await driver(() => cursor.toArray())) as unknown as T[];
  }

  /** The driver's documents are fresh for every call: nothing to share. */
  async findShared(filter: Filter, options: FindOptions = {}): Promise<Shared<T>[]> {
    return (await this.find(filter, options)) as Shared<T>[];
  }

  async count(filter: Filter): Promise<number> {
    assertDefinedFilter(filter);
    return driver(() => this.c.countDocuments(filter));
  }

  async update(filter: Filter, set: Partial<T>, unset: string[] = []): Promise<number> {
    assertDefinedFilter(filter);
    const update = updateOf(set, unset);
    if (Object.keys(update).length === 0) return this.count(filter);
    const result = await driver(() => (singleIdOf(filter) !== undefined ? this.c.updateOne(filter, update) : this.c.updateMany(filter, update)));
    return result.matchedCount;
  }

  async replace(filter: Filter, doc: T): Promise<boolean> {
    assertDefinedFilter(filter);
    return (await driver(() => this.c.replaceOne(filter, withoutUndefined(doc) as Document))).matchedCount > 0;
  }

  async delete(filter: Filter): Promise<number> {
    assertDefinedFilter(filter);
    const result = await driver(() => (singleIdOf(filter) !== undefined ? this.c.deleteOne(filter) : this.c.deleteMany(filter)));
    return result.deletedCount;
  }

  async replaceVersion(version: Version, doc: T): Promise<boolean> {
    return this.overVersion(version, () => this.replace(versionFilter(version), doc));
  }

  async deleteVersion(version: Version): Promise<boolean> {
    return this.overVersion(version, async () => (await this.delete(versionFilter(version))) > 0);
  }

  /**
   * MongoDB: one round trip, each update atomic over its own filter. FerretDB: each version claimed
   * and written in turn (a lease renewal there is one claim and one update a lease).
   */
  async updateVersions(versions: Version[], set: Partial<T>): Promise<number> {
    if (versions.length === 0) return 0;
    if (this.claims) {
      let matched = 0;
      for (const version of versions) if (await this.overVersion(version, async () => (await this.update(versionFilter(version), set)) > 0)) matched++;
      return matched;
    }
    const update = updateOf(set);
    const result = await driver(() => this.c.bulkWrite(versions.map((v) => ({ updateOne: { filter: versionFilter(v), update } })), { ordered: false }));
    return result.matchedCount;
  }

  private overVersion(version: Version, write: () => Promise<boolean>): Promise<boolean> {
    return this.claims ? this.claims.claimed(this.c.collectionName, version, write) : write();
  }
}
