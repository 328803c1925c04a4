import NedbModule from '@seald-io/nedb';
import NedbCursor from '@seald-io/nedb/lib/cursor.js';
import nedbModel from '@seald-io/nedb/lib/model.js';
import { DuplicateKeyError, versionFilter, type Collection, type Filter, type FindOptions, type IndexSpec, type Shared, type Sort, type Version } from '../collection.js';
import { assertDefinedFilter, undefinedFieldsOf, withoutUndefined } from '../document-rules.js';
import { BatchedAppend, fileSink, type AppendOutcome, type NedbWriting } from './batched-append.js';
import { removeInPlace } from './index-removal.js';
import { loadQuickly } from './quick-load.js';
import { cutTornTail, type StoreRepair } from './torn-tail.js';

// nedb is CommonJS whose typings claim an ES default export.
const Datastore = ((NedbModule as unknown as { default?: unknown }).default ?? NedbModule) as typeof NedbModule.default;
type Datastore = InstanceType<typeof Datastore>;

/** nedb's own write steps, which its public methods queue (BatchedAppend queues them itself). */
interface NedbSteps {
  _insertAsync(doc: unknown): Promise<unknown>;
  _updateAsync(query: unknown, update: unknown, options: { multi: boolean }): Promise<{ numAffected: number }>;
  _removeAsync(query: unknown, options: { multi: boolean }): Promise<number>;
}

const isUniqueViolation = (e: unknown) => (e as { errorType?: string } | null)?.errorType === 'uniqueViolated';

/** nedb's order of two strings (`compareThings` of two strings). */
const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** nedb's own order (`compareThings`), with each document's sort values read once rather than at every comparison. */
function sortLikeNedb<T extends { _id: string }>(docs: T[], sort: Sort): T[] {
  const fields = Object.entries(sort);
  // By id alone (every page of a list): ids are strings, so compared directly.
  if (fields.length === 1 && fields[0][0] === '_id') {
    const direction = fields[0][1];
    return docs.sort((a, b) => direction * compareIds(a._id, b._id));
  }
  const keyed = docs.map((doc) => ({ doc, values: fields.map(([field]) => nedbModel.getDotValue(doc, field)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const order = fields[i][1] * nedbModel.compareThings(a.values[i], b.values[i]);
      if (order !== 0) return order;
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}

/** Strips nedb's internal fields and returns plain copies. */
const plain = <T>(doc: unknown): T => doc as T;

export class NedbCollection<T extends { _id: string }> implements Collection<T> {
  private readonly steps: NedbSteps;

  private constructor(
    private readonly db: Datastore,
    private readonly uniqueFields: string[],
    private readonly appends: BatchedAppend,
    private readonly compaction: NodeJS.Timeout,
  ) {
    this.steps = db as unknown as NedbSteps;
  }

  /**
   * nedb's error does not say which index refused; find the field whose value another document
   * already holds. `written` matches the documents being changed (update, replace): they do not
   * clash with themselves, so a unique field set to its own value is not named.
   */
  private async duplicateOf(values: Record<string, unknown>, written?: Filter): Promise<DuplicateKeyError> {
    for (const field of ['_id', ...this.uniqueFields]) {
      if (values[field] === undefined || (field === '_id' && written !== undefined)) continue;
      // nedb's types leave out the null it answers when nothing matches.
      const other: unknown = await this.db.findOneAsync(written === undefined ? { [field]: values[field] } : { $and: [{ [field]: values[field] }, { $not: written }] });
      if (other) return new DuplicateKeyError(field);
    }
    return new DuplicateKeyError(this.uniqueFields[0] ?? '_id');
  }

  /** `onOutcome` hears whether each append got to disk (the store's writability). */
  static async open<T extends { _id: string }>(
    filename: string,
    indexes: IndexSpec[],
    onRepair: (repair: StoreRepair) => void,
    onOutcome: (outcome: AppendOutcome) => void = () => undefined,
  ): Promise<NedbCollection<T>> {
    const cut = await cutTornTail(filename);
    if (cut > 0) onRepair({ file: filename, dropped: `a half-written last record (${cut} bytes)` });
    const db = new Datastore({ filename, autoload: false, timestampData: false });
    await loadQuickly(db);
    const writing = db as unknown as NedbWriting;
    const appends = BatchedAppend.install(writing, fileSink(filename, writing.persistence.modes.fileMode), onOutcome);
    // nedb keeps index definitions in the file: drop those no longer declared or declared differently.
    const loaded = (db as unknown as { indexes: Record<string, { unique: boolean; sparse: boolean }> }).indexes;
    for (const [field, index] of Object.entries(loaded)) {
      if (field === '_id') continue;
      const wanted = indexes.find((i) => i.field === field);
      if (!wanted || Boolean(wanted.unique) !== index.unique || Boolean(wanted.sparse) !== index.sparse) await db.removeIndexAsync(field);
    }
    for (const index of indexes) {
      await db.ensureIndexAsync({ fieldName: index.field, unique: index.unique ?? false, sparse: index.sparse ?? false });
    }
    await appends.settle();
    removeInPlace((db as unknown as { indexes: Record<string, unknown> }).indexes);
    // nedb appends every write; compacting hourly keeps the file (and the next load) small. Not
    // nedb's own timer: it drops the compaction's promise, so a full disk would end the process
    // (an unhandled rejection); a failed compaction leaves the file as it was.
    const compaction = setInterval(() => void db.compactDatafileAsync().catch(() => undefined), 60 * 60 * 1000);
    return new NedbCollection<T>(db, indexes.filter((i) => i.unique).map((i) => i.field), appends, compaction);
  }

  async insert(doc: T): Promise<void> {
    try {
      await this.appends.write(() => this.steps._insertAsync(withoutUndefined(doc)));
    } catch (e) {
      if (isUniqueViolation(e)) throw await this.duplicateOf(doc);
      throw e;
    }
  }

  async findById(id: string): Promise<T | null> {
    return plain<T | null>(await this.db.findOneAsync({ _id: id }));
  }

  /** nedb holds every document in memory; its own, lent as `findShared` lends them (a write stores a new object). */
  cachedById(id: string): Shared<T> | undefined {
    return (this.db as unknown as { indexes: { _id: { getMatching(id: string): Shared<T>[] } } }).indexes._id.getMatching(id)[0];
  }

  async findOne(filter: Filter): Promise<T | null> {
    assertDefinedFilter(filter);
    return plain<T | null>(await this.db.findOneAsync(filter));
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    assertDefinedFilter(filter);
    let cursor = this.db.findAsync(filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return plain<T[]>(await cursor);
  }

  /**
   * nedb's `find` deep-copies every answer; its cursor without a map function answers with the
   * documents it holds. nedb never changes those in place (an update stores a new object), so a
   * caller that only reads them sees a consistent document. Sorting here reads each sort value
   * once (nedb's cursor splits the field path at every comparison).
   */
  async findShared(filter: Filter, options: FindOptions = {}): Promise<Shared<T>[]> {
    assertDefinedFilter(filter);
    let docs = await new NedbCursor<T>(this.db, filter).execAsync();
    if (options.sort) docs = sortLikeNedb(docs, options.sort);
    return (options.limit === undefined ? docs : docs.slice(0, options.limit)) as Shared<T>[];
  }

  async count(filter: Filter): Promise<number> {
    assertDefinedFilter(filter);
    return await this.db.countAsync(filter);
  }

  async update(filter: Filter, set: Partial<T>, unset: string[] = []): Promise<number> {
    assertDefinedFilter(filter);
    const update: Record<string, unknown> = {};
    const defined = withoutUndefined(set);
    if (Object.keys(defined).length > 0) update.$set = defined;
    const removed = [...new Set([...unset, ...undefinedFieldsOf(set)])];
    if (removed.length > 0) update.$unset = Object.fromEntries(removed.map((k) => [k, true]));
    if (Object.keys(update).length === 0) return this.count(filter);
    try {
      const { numAffected } = await this.appends.write(() => this.steps._updateAsync(filter, update, { multi: true }));
      return numAffected;
    } catch (e) {
      if (isUniqueViolation(e)) throw await this.duplicateOf(set, filter);
      throw e;
    }
  }

  async replace(filter: Filter, doc: T): Promise<boolean> {
    assertDefinedFilter(filter);
    try {
      const { numAffected } = await this.appends.write(() => this.steps._updateAsync(filter, withoutUndefined(doc), { multi: false }));
      return numAffected > 0;
    } catch (e) {
      if (isUniqueViolation(e)) throw await this.duplicateOf(doc, filter);
      throw e;
    }
  }

  async delete(filter: Filter): Promise<number> {
    assertDefinedFilter(filter);
    return await this.appends.write(() => this.steps._removeAsync(filter, { multi: true }));
  }

  /** Only this process writes these files, and nedb runs each update whole, filter and write, before the next. */
  replaceVersion(version: Version, doc: T): Promise<boolean> {
    return this.replace(versionFilter(version), doc);
  }

  async deleteVersion(version: Version): Promise<boolean> {
    return (await this.delete(versionFilter(version))) > 0;
  }

  async updateVersions(versions: Version[], set: Partial<T>): Promise<number> {
    let matched = 0;
    for (const version of versions) matched += await this.update(versionFilter(version), set);
    return matched;
  }

  async compact(): Promise<void> {
    await this.db.compactDatafileAsync();
  }

  stopCompaction(): void {
    clearInterval(this.compaction);
  }
}
