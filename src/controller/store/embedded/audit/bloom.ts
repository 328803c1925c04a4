/**
 * A Bloom filter over strings: "certainly absent" or "maybe present". Each sealed audit segment
 * keeps one over the filter keys its posting file holds, so a search for a value a day never saw
 * skips that day without reading its file. 10 bits and 7 probes per key: about one false positive in 120.
 */
export class Bloom {
  static readonly bitsPerKey = 10;
  static readonly probes = 7;

  private constructor(readonly bits: Uint8Array) {}

  /** The filter's size in bytes for `count` keys (a multiple of 8, so what follows it in a file stays aligned). */
  static bytesFor(count: number): number {
    return Math.max(8, Math.ceil((count * Bloom.bitsPerKey) / 64) * 8);
  }

  /** A filter written into `bits` (zeroed, `bytesFor(hashes.length)` long) over the given key hashes. */
  static fill(bits: Uint8Array, keyHashes: Iterable<KeyHash>): Bloom {
    const bloom = new Bloom(bits);
    for (const hash of keyHashes) bloom.add(hash);
    return bloom;
  }

  static fromBytes(bytes: Uint8Array): Bloom {
    return new Bloom(bytes);
  }

  private add([h1, h2]: KeyHash): void {
    const size = this.bits.length * 8;
    for (let i = 0; i < Bloom.probes; i++) {
      const bit = (h1 + i * h2) % size;
      this.bits[bit >>> 3] |= 1 << (bit & 7);
    }
  }

  mayHave([h1, h2]: KeyHash): boolean {
    const size = this.bits.length * 8;
    for (let i = 0; i < Bloom.probes; i++) {
      const bit = (h1 + i * h2) % size;
      if ((this.bits[bit >>> 3] & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }
}

/** Two 32-bit hashes of a key: together they name it in a posting file, and drive the Bloom probes. */
export type KeyHash = readonly [number, number];

/** Two independent 32-bit FNV-1a-style hashes (different offsets and primes). */
export function hashKey(key: string): KeyHash {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Mixed so its top bits, which pick a posting file's bucket, depend on every character.
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  // The second hash must be odd so the probes cover the table rather than a divisor of it.
  return [a >>> 0, (b | 1) >>> 0];
}
