import type { Collection, Filter, FindOptions, Shared, Version } from './collection.js';

/** Documents are JSON-like (strings, numbers, booleans, null, arrays, objects); a copy keeps callers from changing the cached one. */
function copyOf<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyOf) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = copyOf((value as Record<string, unknown>)[key]);
  return copy as T;
}

/**
 * A collection whose `findById` answers from memory: the session and its user, read by every
 * signed-in request. Every write through it empties the cache, before and after, and a read that
 * overlapped a write is not kept, so an ended session or a changed user is seen by the very next
 * request. Only for the embedded store, whose files one process owns: with MongoDB another
 * process could write behind its back.
 */
export class ByIdCache<T extends { _id: string }> implements Collection<T> {
  private readonly docs = new Map<string, T>();
  /** Bumped by every write; a read keeps its answer only if no write began or ended meanwhile. */
  private generation = 0;

  /** `capacity` bounds the memory: past it the cache starts over (the documents are still in the store). */
  constructor(private readonly inner: Collection<T>, private readonly capacity = 10_000) {}

  async findById(id: string): Promise<T | null> {
    const cached = this.docs.get(id);
    if (cached) return copyOf(cached);
    const generation = this.generation;
    const doc = await this.inner.findById(id);
    if (doc && generation === this.generation) {
      if (this.docs.size >= this.capacity) this.docs.clear();
      this.docs.set(id, copyOf(doc));
    }
    return doc;
  }

  /** The cache's own copy, lent read-only: a write replaces it rather than change it. */
  cachedById(id: string): Shared<T> | undefined {
    return this.docs.get(id) as Shared<T> | undefined;
  }

  findOne(filter: Filter): Promise<T | null> {
    return this.inner.findOne(filter);
  }

  find(filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.inner.find(filter, options);
  }

  findShared(filter: Filter, options?: FindOptions): Promise<Shared<T>[]> {
    return this.inner.findShared(filter, options);
  }

  count(filter: Filter): Promise<number> {
    return this.inner.count(filter);
  }

  insert(doc: T): Promise<void> {
    return this.writing(() => this.inner.insert(doc));
  }

  update(filter: Filter, set: Partial<T>, unset?: (keyof T & string)[]): Promise<number> {
    return this.writing(() => this.inner.update(filter, set, unset));
  }

  replace(filter: Filter, doc: T): Promise<boolean> {
    return this.writing(() => this.inner.replace(filter, doc));
  }

  delete(filter: Filter): Promise<number> {
    return this.writing(() => this.inner.delete(filter));
  }

  replaceVersion(version: Version, doc: T): Promise<boolean> {
    return this.writing(() => this.inner.replaceVersion(version, doc));
  }

  deleteVersion(version: Version): Promise<boolean> {
    return this.writing(() => this.inner.deleteVersion(version));
  }

  updateVersions(versions: Version[], set: Partial<T>): Promise<number> {
    return this.writing(() => this.inner.updateVersions(versions, set));
  }

  private async writing<R>(write: () => Promise<R>): Promise<R> {
    this.forget();
    try {
      return await write();
    } finally {
      this.forget();
    }
  }

  private forget(): void {
    this.generation++;
    this.docs.clear();
  }
}
