import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { eventKeys, queryKeys } from '../../src/controller/store/embedded/audit/block.js';
import { HandlePool } from '../../src/controller/store/embedded/audit/handle-pool.js';
import { OpenPostings } from '../../src/controller/store/embedded/audit/open-postings.js';
import { encodePostings, SealedPostings } from '../../src/controller/store/embedded/audit/posting-file.js';
import type { AuditEventRecord } from '../../src/controller/store/records.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** Line i at offset 100·i: a value of its own, one of 7, and one every line holds. */
const keysOf = (i: number) => [`unique-${i}`, `mod7-${i % 7}`, 'all'];
const lines = 20_000;
const offsetsWhere = (keep: (i: number) => boolean) => Array.from({ length: lines }, (_, i) => i).filter(keep).map((i) => i * 100);

describe('OpenPostings: the open audit segment keys its posting lists by hash, off the JS heap', () => {
  it('gives each key its ascending offsets across chunks and table growth, and intersects', async () => {
    const postings = new OpenPostings();
    for (let i = 0; i < lines; i++) postings.add(i * 100, keysOf(i));
    expect(postings.size).to.equal(lines + 8);
    expect(Array.from(await postings.lookup(['unique-12345']))).to.deep.equal([1_234_500]);
    expect(Array.from(await postings.lookup(['mod7-3']))).to.deep.equal(offsetsWhere((i) => i % 7 === 3));
    expect(Array.from(await postings.lookup(['all']))).to.deep.equal(offsetsWhere(() => true));
    expect(Array.from(await postings.lookup(['mod7-3', 'unique-10']))).to.deep.equal([1000]);
    expect(Array.from(await postings.lookup(['mod7-3', 'all']))).to.deep.equal(offsetsWhere((i) => i % 7 === 3));
    // A list far longer than the shortest is not read: the answer is a superset, each event checked by the search.
    expect(Array.from(await postings.lookup(['mod7-3', 'unique-11']))).to.deep.equal([1100]);
    expect(Array.from(await postings.lookup(['nowhere']))).to.deep.equal([]);
  });

  it('hands out a copy: offsets added after a lookup are not in its answer', async () => {
    const postings = new OpenPostings();
    for (let i = 0; i < 30; i++) postings.add(i * 100, ['all']);
    const before = await postings.lookup(['all']);
    postings.add(3000, ['all']);
    expect(before.length).to.equal(30);
    expect((await postings.lookup(['all'])).length).to.equal(31);
  });

  it('merges the lists of keys whose hashes are equal, so a lookup answers a superset, never less', async () => {
    // Keys of equal length collide: `a1`…`a9` share one list, `b10`… another.
    const postings = new OpenPostings((key) => [key.length, 1]);
    for (let i = 1; i < 30; i++) postings.add(i * 100, [`a${i}`]);
    expect(postings.size).to.equal(2);
    expect(Array.from(await postings.lookup(['a5']))).to.deep.equal(Array.from({ length: 9 }, (_, k) => (k + 1) * 100));
    expect(Array.from(await postings.lookup(['a25']))).to.include(2500);
    expect([...postings.entries()].map(([hash, offsets]) => [hash, offsets.length])).to.have.deep.members([[[2, 1], 9], [[3, 1], 20]]);
  });

  it('writes a posting file that answers each lookup as the open postings did', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-open-postings-'));
    const files = new HandlePool(4);
    try {
      const postings = new OpenPostings();
      for (let i = 0; i < lines; i++) postings.add(i * 100, keysOf(i));
      const file = join(dir, 'segment.post');
      await writeFile(file, encodePostings(postings.entries(), lines * 100, lines));
      const sealed = (await SealedPostings.load(file, lines * 100))!;
      for (const keys of [['unique-7'], ['unique-19999'], ['mod7-6'], ['all', 'mod7-0'], ['mod7-1', 'unique-8'], ['nowhere']]) {
        expect(Array.from(await sealed.lookup(keys, files)), keys.join()).to.deep.equal(Array.from(await postings.lookup(keys)));
      }
    } finally {
      await files.closeAll();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('costs (nearly) no JS heap per distinct value: 200,000 of them stay under 2 MiB', () => {
    // Kept in a Map of strings, these cost ≈ 150 bytes of heap each, ≈ 30 MiB: the soak's growth.
    const postings = new OpenPostings();
    const before = heapAfterGc();
    for (let i = 0; i < 100_000; i++) postings.add(i * 300, [`3\u0000team-${i}-0190a2b4-7c3e-7000-8000-00000000000a`, `8\u0000FAILED\u0000team-${i}`, '4\u0000FAILED']);
    const grown = heapAfterGc() - before;
    expect(postings.size).to.equal(200_001);
    expect(grown).to.be.below(2 * 1024 * 1024);
  });

  it('names a target by kind and id in one list: an id shared by two kinds reads only the asked kind\'s lines', async () => {
    const postings = new OpenPostings();
    const event = (i: number, targetKind: string, targetId: string) => ({ id: i + 1, occurredAt: '2030-01-01T00:00:00.000Z', actorKind: 'SYSTEM', action: 'x.y', outcome: 'SUCCESS', targetKind, targetId }) as AuditEventRecord;
    for (let i = 0; i < 30; i++) postings.add(i * 100, eventKeys(event(i, i % 3 === 0 ? 'node' : 'server', 'shared-id')));
    // Many other Nodes: the kind's list is too long to be worth intersecting with the id's.
    for (let i = 30; i < 1030; i++) postings.add(i * 100, eventKeys(event(i, 'node', `node-${i}`)));
    const keys = queryKeys({ targetKind: 'node', targetId: 'shared-id', limit: 10 });
    expect(keys.withTargetPairs).to.have.length(1);
    expect(Array.from(await postings.lookup(keys.withTargetPairs))).to.deep.equal(Array.from({ length: 10 }, (_, k) => k * 300));
    expect((await postings.lookup(keys.withoutTargetPairs)).length, 'without the pair: every line of the id, to be checked one by one').to.equal(30);
  });
});
