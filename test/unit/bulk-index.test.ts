import { expect } from 'chai';
import { createRequire } from 'node:module';
import { fillIndex } from '../../src/controller/store/embedded/bulk-index.js';

// nedb's Index class is internal (no typings): the reference the one-pass fill is compared with.
const NedbIndex = createRequire(import.meta.url)('@seald-io/nedb/lib/indexes.js') as new (options: { fieldName: string; unique?: boolean; sparse?: boolean }) => Filled;

interface TreeNode { key?: unknown; data: unknown[]; left: TreeNode | null; right: TreeNode | null; parent: TreeNode | null; height?: number; createSimilar(options: { parent: TreeNode }): TreeNode }
interface Filled {
  unique: boolean;
  sparse: boolean;
  _fields: string[];
  tree: { tree: TreeNode; checkIsAVLT(): void };
  reset(docs?: unknown[]): void;
  getMatching(value: unknown): unknown[];
  getBetweenBounds(query: Record<string, unknown>): unknown[];
  insert(doc: unknown): void;
  remove(doc: unknown): void;
}

/** Keys in order, each with its documents' ids in the order they are filed. */
function inOrder(node: TreeNode | null, out: [unknown, unknown[]][] = []): [unknown, unknown[]][] {
  if (!node || !('key' in node)) return out;
  inOrder(node.left, out);
  out.push([node.key, node.data.map((d) => (d as { _id: string })._id)]);
  inOrder(node.right, out);
  return out;
}

function both(options: { fieldName: string; unique?: boolean; sparse?: boolean }, docs: Record<string, unknown>[]) {
  const nedb = new NedbIndex(options);
  nedb.reset(docs);
  const filled = new NedbIndex(options);
  fillIndex(filled, docs);
  return { nedb, filled };
}

describe('filling a nedb index in one pass', () => {
  // uuid v7-like ids arrive almost sorted; shuffled ones and repeated keys exercise the rest.
  const docs = Array.from({ length: 5_000 }, (_, i) => ({
    _id: `${String(i * 7919 % 5_000).padStart(5, '0')}-x`,
    nodeId: `n${i % 250}`,
    teamId: 't1',
    port: i % 3 === 0 ? undefined : i % 97,
    when: new Date(Date.UTC(2030, 0, 1, 0, 0, i % 60)),
    workflow: i % 10 === 0 ? { removeOnNodeId: `n${i % 7}` } : undefined,
  }));

  for (const options of [
    { fieldName: '_id', unique: true }, { fieldName: 'nodeId' }, { fieldName: 'teamId' }, { fieldName: 'port' },
    { fieldName: 'when' }, { fieldName: 'workflow.removeOnNodeId', sparse: true }, { fieldName: 'port', sparse: true },
  ]) {
    it(`builds the same valid AVL tree nedb builds: ${JSON.stringify(options)}`, () => {
      const { nedb, filled } = both(options, docs);
      filled.tree.checkIsAVLT();
      expect(inOrder(filled.tree.tree)).to.deep.equal(inOrder(nedb.tree.tree));
    });
  }

  it('answers lookups and ranges, and takes later inserts and removals, as nedb\'s does', () => {
    const { nedb, filled } = both({ fieldName: 'nodeId' }, docs);
    const ids = (found: unknown[]) => found.map((d) => (d as { _id: string })._id).sort();
    expect(ids(filled.getMatching('n7'))).to.deep.equal(ids(nedb.getMatching('n7')));
    expect(ids(filled.getBetweenBounds({ $gte: 'n10', $lt: 'n12' }))).to.deep.equal(ids(nedb.getBetweenBounds({ $gte: 'n10', $lt: 'n12' })));
    for (const index of [nedb, filled]) {
      index.insert({ _id: 'new', nodeId: 'n7' });
      index.remove(docs[7]);
      index.tree.checkIsAVLT();
    }
    expect(inOrder(filled.tree.tree)).to.deep.equal(inOrder(nedb.tree.tree));
  });

  it('an empty file leaves the index empty', () => {
    const { nedb, filled } = both({ fieldName: 'nodeId' }, []);
    expect(inOrder(filled.tree.tree)).to.deep.equal([]);
    expect(filled.getMatching('n1')).to.deep.equal(nedb.getMatching('n1'));
  });

  it('leaves array values, compound keys and a repeated unique key to nedb (which refuses the last as before)', () => {
    const tagged = [{ _id: 'a', tags: ['x', 'y'] }, { _id: 'b', tags: ['y'] }];
    const arrays = both({ fieldName: 'tags' }, tagged);
    expect(inOrder(arrays.filled.tree.tree)).to.deep.equal(inOrder(arrays.nedb.tree.tree));
    const compound = both({ fieldName: 'nodeId,teamId' }, docs.slice(0, 100));
    expect(inOrder(compound.filled.tree.tree)).to.deep.equal(inOrder(compound.nedb.tree.tree));
    const twice = new NedbIndex({ fieldName: 'name', unique: true });
    expect(() => fillIndex(twice, [{ _id: 'a', name: 'same' }, { _id: 'b', name: 'same' }])).to.throw().with.property('errorType', 'uniqueViolated');
  });
});
