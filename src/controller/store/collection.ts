/**
 * The generic document collection both store adapters implement. Filters are the subset of
 * MongoDB's query language that the embedded engine also understands: equality, $in, $nin, $ne,
 * $gt/$gte/$lt/$lte, $exists, $and and $or, and array-contains equality. Services never see which adapter is behind it.
 */
export type Filter = Record<string, unknown>;
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  limit?: number;
}

/**
 * A document the store lends rather than copies (see `findShared`): the type forbids changing it,
 * since with the embedded store that would change the store's own copy.
 */
export type Shared<T> = T extends readonly (infer U)[] ? readonly Shared<U>[] : T extends object ? { readonly [K in keyof T]: Shared<T[K]> } : T;

export interface IndexSpec {
  field: string;
  unique?: boolean;
  /** Sparse unique indexes ignore documents that lack the field. */
  sparse?: boolean;
}

/** One version of one document: the value its version field (one that only grows) held when it was read. */
export interface Version {
  id: string;
  field: string;
  value: string | number;
  /**
   * Where writes over a version are claimed first (FerretDB): how long another writer's claim on
   * it may stand before it is taken over (default 10 s). A writer whose own claim took half that
   * to be granted does not write.
   */
  claimStaleMs?: number;
}

export interface Collection<T extends { _id: string }> {
  insert(doc: T): Promise<void>;
  findById(id: string): Promise<T | null>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /**
   * As `find`, for reads that only look (list pages): the embedded store answers with its own
   * documents instead of deep copies, which were most of a page's cost.
   */
  findShared(filter: Filter, options?: FindOptions): Promise<Shared<T>[]>;
  /**
   * The document with that id, lent as `findShared` lends them, when the collection holds it in
   * memory (every embedded collection, and the session and user caches in front of two of them);
   * undefined when finding it takes a read.
   */
  cachedById?(id: string): Shared<T> | undefined;
  count(filter: Filter): Promise<number>;
  /** $set (and optional $unset) on every match; returns how many matched. */
  update(filter: Filter, set: Partial<T>, unset?: (keyof T & string)[]): Promise<number>;
  /** Replaces the whole document when the filter matches; returns whether it did. */
  replace(filter: Filter, doc: T): Promise<boolean>;
  delete(filter: Filter): Promise<number>;
  /**
   * Replaces the document while it still holds `version` (`doc` holds a newer one); false when it
   * does not. Of writers racing over one version at most one succeeds, on every store: FerretDB v1
   * checks `replace`'s filter apart from its write, where MongoDB does both at once.
   */
  replaceVersion(version: Version, doc: T): Promise<boolean>;
  /** Deletes the document while it still holds `version`, as `replaceVersion` replaces it; false when it does not. */
  deleteVersion(version: Version): Promise<boolean>;
  /** $set on each document while it still holds its version, as `replaceVersion` replaces one; returns how many matched. */
  updateVersions(versions: Version[], set: Partial<T>): Promise<number>;
}

/** The filter that matches the document only while it holds `version`. */
export const versionFilter = (version: Version): Filter => ({ _id: version.id, [version.field]: version.value });

/** Thrown by insert/update when a unique index would be violated; `field` names the index. */
export class DuplicateKeyError extends Error {
  constructor(readonly field: string) {
    super(`duplicate value for unique field ${field}`);
    this.name = 'DuplicateKeyError';
  }

  /**
   * By name: the MongoDB adapter is imported lazily, and under the test runner that import can load
   * a second copy of this module, whose errors the first copy's class would not recognise.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof Error && value.name === 'DuplicateKeyError' && typeof (value as { field?: unknown }).field === 'string';
  }
}

export const isDuplicateKey = (e: unknown): e is DuplicateKeyError => e instanceof DuplicateKeyError;
