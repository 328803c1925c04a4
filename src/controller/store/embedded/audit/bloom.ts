/**
 * A Bloom filter over strings: "certainly absent" or "maybe present". A block of audit events keeps
 * one over its filterable values so a search reads from disk only the blocks that may match.
 * 16 bits and 11 probes per key give about one false positive in 2,000.
 */
export class Bloom {
  static readonly bitsPerKey = 16;
  static readonly probes = 11;

  private constructor(readonly bits: Uint8Array) {}

  static of(keys: Iterable<string>, count: number): Bloom {
    const bloom = new Bloom(new Uint8Array(Math.max(8, Math.ceil((count * Bloom.bitsPerKey) / 8))));
    for (const key of keys) bloom.add(key);
    return bloom;
  }

  static fromBytes(bytes: Uint8Array): Bloom {
    return new Bloom(bytes);
  }

  private add(key: string): void {
    const size = this.bits.length * 8;
    const [h1, h2] = hashes(key);
    for (let i = 0; i < Bloom.probes; i++) {
      const bit = (h1 + i * h2) % size;
      this.bits[bit >>> 3] |= 1 << (bit & 7);
    }
  }

  mayHave(key: string): boolean {
    const size = this.bits.length * 8;
    const [h1, h2] = hashes(key);
    for (let i = 0; i < Bloom.probes; i++) {
      const bit = (h1 + i * h2) % size;
      if ((this.bits[bit >>> 3] & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }
}

/** Two independent 32-bit FNV-1a-style hashes (different offsets and primes) for double hashing. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // The second hash must be odd so the probes cover the table rather than a divisor of it.
  return [a >>> 0, (b | 1) >>> 0];
}
