import { open, type FileHandle } from 'node:fs/promises';
import { Bloom, hashKey, type KeyHash } from './bloom.js';
import { readAt, type HandlePool } from './handle-pool.js';
import { intersect, worthReading, type Postings } from './postings.js';

/*
 * `<segment>.post`, written once when a segment is sealed (docs/operations.md describes it too).
 * Little-endian; a key is named by its two 32-bit hashes (a collision only merges two lists, and
 * every event read is checked against the query anyway):
 *
 *   0   "CAIRNPL2" ("CAIRNPL1": written before a target's kind and id were also one key; read as they are)
 *   8   f64  size in bytes of the segment file it describes (stale when they differ)
 *   16  u32  events in the segment
 *   20  u32  K keys
 *   24  u32  b: 2^b buckets, by the top b bits of the first hash
 *   28  u32  M bytes of Bloom filter
 *   32  u32  P postings in all
 *   36  u32  F frequent keys (0 in files written before they were kept: such a file reads the same)
 *   40  Bloom filter over the keys (M bytes)
 *       bucket table: 2^b + 1 u32, the index of each bucket's first entry (the last is K)
 *       F entries of the keys with at least `frequentPostings` postings, sorted by hash (copies of theirs below)
 *       K entries of 16 bytes, sorted by hash: hash1, hash2, postings count, index of the first
 *         posting; for a key with one posting (most values of a rare field), that offset itself
 *       P u32 postings of the keys with more than one: byte offsets of event lines, ascending per key
 *
 * Memory keeps the Bloom filter, the bucket table (about 1.5 bytes per key) and the frequent
 * entries (a few hundred a day: every actor, action and kind of a busy day); a lookup reads one
 * bucket's entries (≈ 16 × 16 bytes) unless its key is frequent, and then, unless the key has one
 * posting, its list. So a search by target and kind reads the target's bucket and line only, and
 * one by actor and action reads both lists straight away.
 */
const magic = Buffer.from('CAIRNPL2');
const magicWithoutTargetPairs = Buffer.from('CAIRNPL1');
const headerBytes = 40;
const entryBytes = 16;
/** Keys per bucket on average: a lookup reads about this many entries. */
const bucketKeys = 16;
/** Keys with this many postings or more have their entries in memory too: a bound of P / 64 entries a file. */
const frequentPostings = 64;

interface Entry {
  hash: KeyHash;
  offsets: ArrayLike<number>;
}

const compareHashes = (a: KeyHash, b: KeyHash) => a[0] - b[0] || a[1] - b[1];
const bucketOf = (h1: number, bits: number) => (bits === 0 ? 0 : h1 >>> (32 - bits));

/** The bytes of a posting file for one segment's lists (distinct key hashes → ascending line offsets). */
export function encodePostings(lists: Iterable<[KeyHash, ArrayLike<number>]>, segmentSize: number, events: number): Buffer {
  const entries: Entry[] = [];
  for (const [hash, offsets] of lists) entries.push({ hash, offsets });
  entries.sort((a, b) => compareHashes(a.hash, b.hash));
  const keys = entries.length;
  const bits = keys <= bucketKeys ? 0 : Math.ceil(Math.log2(keys / bucketKeys));
  const buckets = 2 ** bits;
  const bloomBytes = Bloom.bytesFor(keys);
  const postings = entries.reduce((n, e) => n + (e.offsets.length > 1 ? e.offsets.length : 0), 0);
  const frequent = entries.filter((e) => e.offsets.length >= frequentPostings).length;
  const tableAt = headerBytes + bloomBytes;
  const frequentAt = tableAt + (buckets + 1) * 4;
  const entriesAt = frequentAt + frequent * entryBytes;
  const postingsAt = entriesAt + keys * entryBytes;
  const out = Buffer.alloc(postingsAt + postings * 4);
  magic.copy(out, 0);
  out.writeDoubleLE(segmentSize, 8);
  out.writeUInt32LE(events, 16);
  out.writeUInt32LE(keys, 20);
  out.writeUInt32LE(bits, 24);
  out.writeUInt32LE(bloomBytes, 28);
  out.writeUInt32LE(postings, 32);
  out.writeUInt32LE(frequent, 36);
  Bloom.fill(out.subarray(headerBytes, tableAt), entries.map((e) => e.hash));
  let bucket = 0;
  let posting = 0;
  let copied = 0;
  entries.forEach((entry, i) => {
    for (const b = bucketOf(entry.hash[0], bits); bucket <= b; bucket++) out.writeUInt32LE(i, tableAt + bucket * 4);
    const at = entriesAt + i * entryBytes;
    out.writeUInt32LE(entry.hash[0], at);
    out.writeUInt32LE(entry.hash[1], at + 4);
    out.writeUInt32LE(entry.offsets.length, at + 8);
    if (entry.offsets.length === 1) out.writeUInt32LE(entry.offsets[0], at + 12);
    else {
      out.writeUInt32LE(posting, at + 12);
      for (let k = 0; k < entry.offsets.length; k++) out.writeUInt32LE(entry.offsets[k], postingsAt + 4 * posting++);
    }
    if (entry.offsets.length >= frequentPostings) out.copy(out, frequentAt + entryBytes * copied++, at, at + entryBytes);
  });
  for (; bucket <= buckets; bucket++) out.writeUInt32LE(keys, tableAt + bucket * 4);
  return out;
}

interface Found {
  count: number;
  first: number;
}

/** A sealed segment's posting file: its Bloom filter and bucket table in memory, the rest read per lookup. */
export class SealedPostings implements Postings {
  private constructor(
    readonly indexesTargetPairs: boolean,
    private readonly file: string,
    private readonly bloom: Bloom,
    private readonly table: Buffer,
    private readonly frequent: Buffer,
    private readonly bits: number,
    private readonly entriesAt: number,
    private readonly postingsAt: number,
  ) {}

  /** The posting file when it is whole and describes the segment as it is; undefined when it must be rebuilt. */
  static async load(file: string, segmentSize: number): Promise<SealedPostings | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch {
      return undefined;
    }
    try {
      const header = Buffer.alloc(headerBytes);
      const { size } = await handle.stat();
      if ((await handle.read(header, 0, headerBytes, 0)).bytesRead < headerBytes) return undefined;
      const version = header.subarray(0, 8);
      if (!version.equals(magic) && !version.equals(magicWithoutTargetPairs)) return undefined;
      if (header.readDoubleLE(8) !== segmentSize) return undefined;
      const [keys, bits, bloomBytes, postings, frequent] = [20, 24, 28, 32, 36].map((at) => header.readUInt32LE(at));
      if (bits > 24 || frequent > keys) return undefined;
      const tableBytes = (2 ** bits + 1) * 4;
      const entriesAt = headerBytes + bloomBytes + tableBytes + frequent * entryBytes;
      const postingsAt = entriesAt + keys * entryBytes;
      if (size !== postingsAt + postings * 4) return undefined;
      const head = Buffer.alloc(entriesAt - headerBytes);
      await handle.read(head, 0, head.length, headerBytes);
      const [bloom, table, frequentEntries] = [head.subarray(0, bloomBytes), head.subarray(bloomBytes, bloomBytes + tableBytes), head.subarray(bloomBytes + tableBytes)];
      return new SealedPostings(version.equals(magic), file, Bloom.fromBytes(bloom), table, frequentEntries, bits, entriesAt, postingsAt);
    } finally {
      await handle.close();
    }
  }

  async lookup(keys: readonly string[], files: HandlePool): Promise<ArrayLike<number>> {
    const hashes = keys.map(hashKey);
    if (!hashes.every((h) => this.bloom.mayHave(h))) return [];
    // Pruned since the search began (undefined): nothing to find.
    const known = hashes.map((h) => this.frequentEntry(h));
    const offsets = await files.use(this.file, async (handle) => {
      const found = await Promise.all(hashes.map(async (h, i) => known[i] ?? (await this.find(handle, h))));
      if (found.some((f) => f === undefined)) return [];
      const lists = await Promise.all(worthReading(found as Found[], (f) => f.count).map((f) => this.read(handle, f)));
      return intersect(lists);
    });
    return offsets ?? [];
  }

  /** The entry of a frequent key, from memory (binary search by hash); undefined for every other key. */
  private frequentEntry([h1, h2]: KeyHash): Found | undefined {
    let low = 0;
    let high = this.frequent.length / entryBytes;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const at = mid * entryBytes;
      const order = this.frequent.readUInt32LE(at) - h1 || this.frequent.readUInt32LE(at + 4) - h2;
      if (order === 0) return { count: this.frequent.readUInt32LE(at + 8), first: this.frequent.readUInt32LE(at + 12) };
      if (order < 0) low = mid + 1;
      else high = mid;
    }
    return undefined;
  }

  private async find(handle: FileHandle, [h1, h2]: KeyHash): Promise<Found | undefined> {
    const bucket = bucketOf(h1, this.bits);
    const from = this.table.readUInt32LE(bucket * 4);
    const to = this.table.readUInt32LE(bucket * 4 + 4);
    if (to <= from) return undefined;
    const entries = Buffer.alloc((to - from) * entryBytes);
    await readAt(handle, entries, this.entriesAt + from * entryBytes);
    for (let at = 0; at < entries.length; at += entryBytes) {
      if (entries.readUInt32LE(at) === h1 && entries.readUInt32LE(at + 4) === h2) return { count: entries.readUInt32LE(at + 8), first: entries.readUInt32LE(at + 12) };
    }
    return undefined;
  }

  private async read(handle: FileHandle, { count, first }: Found): Promise<ArrayLike<number>> {
    if (count === 1) return [first];
    const bytes = Buffer.alloc(count * 4);
    await readAt(handle, bytes, this.postingsAt + first * 4);
    const offsets = new Array<number>(count);
    for (let i = 0; i < count; i++) offsets[i] = bytes.readUInt32LE(i * 4);
    return offsets;
  }
}
