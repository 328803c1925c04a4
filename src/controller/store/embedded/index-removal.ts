import nedbModel from '@seald-io/nedb/lib/model.js';

/** The parts of a nedb index that removing a document touches (its typings leave them out). */
interface NedbIndex {
  unique: boolean;
  sparse: boolean;
  _fields: string[];
  tree: { search(key: unknown): unknown[] };
  remove(doc: unknown): void;
  update(oldDoc: unknown, newDoc?: unknown): void;
}

type Key = string | number | boolean;
const isPlainKey = (key: unknown): key is Key => typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean';

/**
 * A write that keeps a document's key (most do: a report does not move a server to another team)
 * swaps the new document in where the old one is filed, instead of taking it out of the key's
 * array and appending it again. Only plain keys; anything else is left to nedb.
 */
function replacedInPlace(index: NedbIndex, positions: WeakMap<object, number>, oldDoc: object, newDoc: object): boolean {
  const key = nedbModel.getDotValues(oldDoc, index._fields);
  if (!isPlainKey(key) || nedbModel.getDotValues(newDoc, index._fields) !== key) return false;
  const filed = index.tree.search(key);
  // Where the document was last swapped in, if nothing moved since; else found by a scan of the key's array.
  const known = positions.get(oldDoc);
  const at = known !== undefined && filed[known] === oldDoc ? known : filed.indexOf(oldDoc);
  if (at < 0) return false;
  filed[at] = newDoc;
  positions.set(newDoc, at);
  return true;
}

/**
 * nedb takes a document out of a non-unique index by copying every other document filed under the
 * same key into a new array: with one team's 100,000 servers, every write of one of them (an
 * Agent's report, a PATCH) cost 50 ms. This takes it out of that array in place, as nedb's insert
 * puts it there (nedb copies candidate lists before it works on them, so nobody holds the array).
 * The last document of a key, which changes the tree, and array-valued fields stay nedb's. Non-unique
 * indexes only: a unique one has one document per key, and its checks must run.
 */
export function removeInPlace(indexes: Record<string, unknown>): void {
  for (const index of Object.values(indexes) as NedbIndex[]) {
    if (index.unique) continue;
    const update = index.update.bind(index);
    const positions = new WeakMap<object, number>();
    // nedb's writes pass pairs, its rollback (revertUpdate) the same pairs reversed: a swap is undone by a swap.
    index.update = (oldDoc: unknown, newDoc?: unknown) => {
      const pairs = (Array.isArray(oldDoc) ? oldDoc : [{ oldDoc, newDoc }]) as { oldDoc: object; newDoc: object }[];
      const left = pairs.filter((pair) => !replacedInPlace(index, positions, pair.oldDoc, pair.newDoc));
      if (left.length > 0) update(left);
    };
    const remove = index.remove.bind(index);
    index.remove = (doc: unknown) => {
      if (!Array.isArray(doc)) {
        const key = nedbModel.getDotValues(doc, index._fields);
        if (key === undefined && index.sparse) return;
        if (!Array.isArray(key)) {
          const filed = index.tree.search(key);
          const at = filed.length > 1 ? filed.indexOf(doc) : -1;
          if (at >= 0) {
            filed.splice(at, 1);
            return;
          }
        }
      }
      remove(doc);
    };
  }
}
