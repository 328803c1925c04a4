import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HandlePool } from '../../src/controller/store/embedded/audit/handle-pool.js';
import { OpenPostings } from '../../src/controller/store/embedded/audit/open-postings.js';
import { encodePostings, SealedPostings } from '../../src/controller/store/embedded/audit/posting-file.js';

/** Line i at offset 100·i: a value of its own, one of 7 (≈ 430 lines each: frequent), and one of 500 (4 lines each). */
const lines = 3000;
const keysOf = (i: number) => [`unique-${i}`, `mod7-${i % 7}`, `mod500-${i % 500}`];
const offsetsWhere = (keep: (i: number) => boolean) => Array.from({ length: lines }, (_, i) => i).filter(keep).map((i) => i * 100);
const header = (file: Buffer, at: number) => file.readUInt32LE(at);

describe('Posting file: the entries of frequent keys are kept in memory', () => {
  let dir: string;
  let files: HandlePool;
  let bytes: Buffer;
  const size = lines * 100;
  const load = async (content: Buffer) => {
    const file = join(dir, `${Math.random()}.post`);
    await writeFile(file, content);
    return (await SealedPostings.load(file, size))!;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-posting-file-'));
    files = new HandlePool(8);
    const postings = new OpenPostings();
    for (let i = 0; i < lines; i++) postings.add(i * 100, keysOf(i));
    bytes = encodePostings(postings.entries(), size, lines);
  });
  afterEach(async () => {
    await files.closeAll();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a frequent key without reading its entry from the file, and every other key from the file', async () => {
    expect(header(bytes, 36), 'the seven mod7 keys are frequent').to.equal(7);
    // Every entry on disk zeroed: only what the load kept in memory can still name the lists.
    const keys = header(bytes, 20);
    const postingsAt = bytes.length - header(bytes, 32) * 4;
    const blind = Buffer.from(bytes);
    blind.fill(0, postingsAt - keys * 16, postingsAt);
    const sealed = await load(blind);
    expect(Array.from(await sealed.lookup(['mod7-3'], files))).to.deep.equal(offsetsWhere((i) => i % 7 === 3));
    expect(Array.from(await sealed.lookup(['mod7-3', 'mod7-4'], files))).to.deep.equal([]);
    expect(Array.from(await sealed.lookup(['mod500-7'], files)), 'not frequent: read from the (zeroed) entries').to.deep.equal([]);
    const whole = await load(bytes);
    expect(Array.from(await whole.lookup(['mod500-7'], files))).to.deep.equal(offsetsWhere((i) => i % 500 === 7));
    expect(Array.from(await whole.lookup(['unique-2999', 'mod7-3'], files))).to.deep.equal([299_900]);
  });

  it('reads a file written before frequent keys were kept (their count 0) the same way', async () => {
    const tableAt = 40 + header(bytes, 28);
    const frequentAt = tableAt + (2 ** header(bytes, 24) + 1) * 4;
    const older = Buffer.concat([bytes.subarray(0, frequentAt), bytes.subarray(frequentAt + header(bytes, 36) * 16)]);
    older.writeUInt32LE(0, 36);
    const sealed = await load(older);
    for (const keys of [['mod7-3'], ['mod500-7'], ['unique-17'], ['mod7-3', 'mod500-10'], ['nowhere']]) {
      expect(Array.from(await sealed.lookup(keys, files)), keys.join()).to.deep.equal(Array.from(await (await load(bytes)).lookup(keys, files)));
    }
    expect(await SealedPostings.load(join(dir, 'missing.post'), size)).to.equal(undefined);
  });
});
