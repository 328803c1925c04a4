import nedbModel from '@seald-io/nedb/lib/model.js';

/** The parts of a nedb index that removing a document touches (its typings leave them out). */
interface NedbIndex {
  unique: boolean;
  sparse: boolean;
  _fields: string[];
  tree: { search(key: unknown): unknown[]; tree: { executeOnEveryNode(fn: (node: { data: unknown[] }) => void): void } };
  remove(doc: unknown): void;
  update(oldDoc: unknown, newDoc?: unknown): void;
}

type Key = string | number | boolean;
const isPlainKey = (key: unknown): key is Key => typeof key === 'string' || typeof key === 'number' || typeof key === 'boolean';

type Doc = { _id: string };

/** Below this many documents under a key, finding one by a scan costs less than remembering where each is. */
const crowded = 64;

/**
 * Where each document of a crowded key is filed, by id, as last seen (checked before use: a removal
 * shifts the rest). Keyed by id rather than in a WeakMap by document: each of 100,000 servers'
 * entries in two indexes was an ephemeron that every major GC of the Controller traced and cleared.
 */
type Positions = Map<string, number>;

/** Every document of a crowded key, as loaded: its first write then finds it without scanning the key's array. */
function filedPositions(index: NedbIndex): Positions {
  const positions: Positions = new Map();
  index.tree.tree.executeOnEveryNode((node) => {
    if (node.data.length < crowded) return;
    node.data.forEach((doc, at) => positions.set((doc as Doc)._id, at));
  });
  return positions;
}

/**
 * A write that keeps a document's key (most do: a report does not move a server to another team)
 * swaps the new document in where the old one is filed, instead of taking it out of the key's
 * array and appending it again. Only plain keys; anything else is left to nedb.
 */
function replacedInPlace(index: NedbIndex, positions: Positions, oldDoc: Doc, newDoc: Doc): boolean {
  const key = nedbModel.getDotValues(oldDoc, index._fields);
  if (!isPlainKey(key) || nedbModel.getDotValues(newDoc, index._fields) !== key) return false;
  const filed = index.tree.search(key);
  // Where the document was last filed, if nothing moved since; else found by a scan of the key's array.
  const known = positions.get(oldDoc._id);
  const at = known !== undefined && filed[known] === oldDoc ? known : filed.indexOf(oldDoc);
  if (at < 0) return false;
  filed[at] = newDoc;
  if (filed.length >= crowded) positions.set(newDoc._id, at);
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
    const positions = filedPositions(index);
    // nedb's writes pass pairs, its rollback (revertUpdate) the same pairs reversed: a swap is undone by a swap.
    index.update = (oldDoc: unknown, newDoc?: unknown) => {
      const pairs = (Array.isArray(oldDoc) ? oldDoc : [{ oldDoc, newDoc }]) as { oldDoc: Doc; newDoc: Doc }[];
      const left = pairs.filter((pair) => !replacedInPlace(index, positions, pair.oldDoc, pair.newDoc));
      if (left.length > 0) update(left);
    };
    const remove = index.remove.bind(index);
    index.remove = (doc: unknown) => {
      for (const gone of (Array.isArray(doc) ? doc : [doc]) as Doc[]) positions.delete(gone._id);
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
