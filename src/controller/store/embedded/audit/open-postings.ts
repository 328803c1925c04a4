import { hashKey, type KeyHash } from './bloom.js';
import { intersect, worthReading, type Postings } from './postings.js';

/*
 * The open segment's posting lists, keyed as its posting file will be: by the key's two 32-bit
 * hashes, so a key costs no string, no Map entry and no array on the JS heap, only a slot of an
 * open-addressing table and, past its first offset, room in a shared pool of chunks (both typed
 * arrays, growing by doubling). A day where every event names a new target then costs a 24-byte
 * slot a value (the table at most half full) off the heap instead of ≈ 150 bytes on it. Two keys
 * with equal hashes share a list, as in the posting file: a search reads a few more lines and
 * drops them, never a wrong event.
 *
 *   slot (6 words): h1, h2 (0 when free: h2 is always odd), count, first offset, first chunk, last chunk
 *   chunk (8 words): next chunk, then up to 7 more offsets of the same key
 */
const slotWords = 6;
const chunkWords = 8;
const perChunk = chunkWords - 1;
/** Lists up to this long are handed out as arrays, longer ones as Uint32Arrays. */
const shortList = 16;

/** The postings of the segment being appended to, in memory: at most one segment's events. */
export class OpenPostings implements Postings {
  /** Built from the lines themselves (at start, by a scan), so always with the keys of this version. */
  readonly indexesTargetPairs = true;
  private slots = new Uint32Array(slotWords * 1024);
  private keys = 0;
  private chunks = new Uint32Array(chunkWords * 256);
  /** Chunk 0 is never handed out, so 0 can mean "no chunk". */
  private chunksUsed = 1;

  /** `hash` is replaceable so tests can make every key collide. */
  constructor(private readonly hash: (key: string) => KeyHash = hashKey) {}

  /** Distinct key hashes so far. */
  get size(): number {
    return this.keys;
  }

  add(offset: number, keys: readonly string[]): void {
    for (const key of keys) this.addHash(this.hash(key), offset);
  }

  private addHash([h1, h2]: KeyHash, offset: number): void {
    if ((this.keys + 1) * 2 > this.slots.length / slotWords) this.grow();
    const s = this.slotOf(h1, h2) * slotWords;
    const slots = this.slots;
    const count = slots[s + 2];
    if (count === 0) {
      slots[s] = h1;
      slots[s + 1] = h2;
      slots[s + 2] = 1;
      slots[s + 3] = offset;
      this.keys += 1;
      return;
    }
    const inChunks = count - 1;
    if (inChunks % perChunk === 0) {
      const chunk = this.newChunk();
      if (inChunks === 0) slots[s + 4] = chunk;
      else this.chunks[slots[s + 5] * chunkWords] = chunk;
      slots[s + 5] = chunk;
    }
    this.chunks[slots[s + 5] * chunkWords + 1 + (inChunks % perChunk)] = offset;
    slots[s + 2] = count + 1;
  }

  /** The slot holding these hashes, or the free one where they would go. */
  private slotOf(h1: number, h2: number): number {
    const mask = this.slots.length / slotWords - 1;
    for (let i = h1 & mask; ; i = (i + 1) & mask) {
      const at = i * slotWords;
      if (this.slots[at + 1] === 0 || (this.slots[at] === h1 && this.slots[at + 1] === h2)) return i;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += slotWords) {
      if (old[at + 1] !== 0) this.slots.set(old.subarray(at, at + slotWords), this.slotOf(old[at], old[at + 1]) * slotWords);
    }
  }

  private newChunk(): number {
    if ((this.chunksUsed + 1) * chunkWords > this.chunks.length) {
      const grown = new Uint32Array(this.chunks.length * 2);
      grown.set(this.chunks);
      this.chunks = grown;
    }
    return this.chunksUsed++;
  }

  /** The offsets of the key in slot `at` (a word index), ascending: a copy, so offsets added later are not in it. */
  private offsetsAt(at: number): ArrayLike<number> {
    const count = this.slots[at + 2];
    const out: number[] | Uint32Array = count <= shortList ? new Array<number>(count) : new Uint32Array(count);
    out[0] = this.slots[at + 3];
    let i = 1;
    for (let chunk = this.slots[at + 4]; chunk !== 0 && i < count; chunk = this.chunks[chunk * chunkWords]) {
      for (let k = 1; k <= perChunk && i < count; k++) out[i++] = this.chunks[chunk * chunkWords + k];
    }
    return out;
  }

  /** Every key's hashes with its offsets, for the posting file. */
  *entries(): Generator<[KeyHash, ArrayLike<number>]> {
    for (let at = 0; at < this.slots.length; at += slotWords) {
      if (this.slots[at + 1] !== 0) yield [[this.slots[at], this.slots[at + 1]], this.offsetsAt(at)];
    }
  }

  lookup(keys: readonly string[]): Promise<ArrayLike<number>> {
    const found: { at: number; count: number }[] = [];
    for (const key of keys) {
      const [h1, h2] = this.hash(key);
      const at = this.slotOf(h1, h2) * slotWords;
      if (this.slots[at + 1] === 0) return Promise.resolve([]);
      found.push({ at, count: this.slots[at + 2] });
    }
    return Promise.resolve(intersect(worthReading(found, (f) => f.count).map((f) => this.offsetsAt(f.at))));
  }
}
