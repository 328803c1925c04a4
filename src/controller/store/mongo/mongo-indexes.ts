import { MongoServerError, type Collection as DriverCollection, type Document } from 'mongodb';
import type { IndexSpec } from '../collection.js';

const nameOf = (spec: IndexSpec) => `${spec.field}_1`;

/** `listsSparse` false: the server does not list `sparse` (FerretDB), which then cannot tell an index changed. */
const matches = (existing: Document, spec: IndexSpec, listsSparse = true) =>
  JSON.stringify(existing.key) === JSON.stringify({ [spec.field]: 1 }) && Boolean(existing.unique) === Boolean(spec.unique)
  && (!listsSparse || Boolean(existing.sparse) === Boolean(spec.sparse));

/**
 * Makes the collection's indexes the declared ones. Cairn owns the indexes of its collections: one
 * whose options changed between versions is dropped and built again (creating it over the old one
 * would stop start-up with code 85/86), and one no longer declared is dropped.
 */
export async function reconcileIndexes(collection: DriverCollection<Document>, declared: IndexSpec[], listsSparse = true): Promise<void> {
  let existing: Document[] = [];
  try {
    existing = (await collection.listIndexes().toArray()) as Document[];
  } catch (e) {
    // A collection that does not exist yet has no indexes (NamespaceNotFound).
    if (!(e instanceof MongoServerError && e.code === 26)) throw e;
  }
  const wanted = new Map(declared.map((spec) => [nameOf(spec), spec]));
  for (const index of existing) {
    const name = String(index.name);
    if (name === '_id_') continue;
    const spec = wanted.get(name);
    // Without `sparse` listed, every start would drop and build the sparse indexes again, and two Controllers
    // starting at once on FerretDB leave it refusing the create for good ("already exists", never listed).
    if (spec && matches(index, spec, listsSparse)) wanted.delete(name);
    else await dropIfThere(collection, name);
  }
  for (const spec of wanted.values()) await createOnce(collection, spec);
}

/**
 * Creates the index, unless another Controller starting on the same database made it meanwhile:
 * MongoDB then answers as for a create of an index that exists, but FerretDB fails the second
 * create ("already exists"), so the index is looked for again before the failure counts (the
 * other Controller's create of the same declaration: name, key and uniqueness are enough).
 */
async function createOnce(collection: DriverCollection<Document>, spec: IndexSpec): Promise<void> {
  try {
    await collection.createIndex({ [spec.field]: 1 }, { name: nameOf(spec), unique: spec.unique ?? false, sparse: spec.sparse ?? false }, undefined);
  } catch (e) {
    const now = (await collection.listIndexes().toArray()) as Document[];
    if (!now.some((index) => index.name === nameOf(spec) && matches(index, spec, false))) throw e;
  }
}

/** Drops the index; one another Controller starting at the same time dropped first is gone as wanted (IndexNotFound). */
async function dropIfThere(collection: DriverCollection<Document>, name: string): Promise<void> {
  try {
    await collection.dropIndex(name);
  } catch (e) {
    if (!(e instanceof MongoServerError && e.code === 27)) throw e;
  }
}
