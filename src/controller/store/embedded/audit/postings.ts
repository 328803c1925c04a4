import type { HandlePool } from './handle-pool.js';

/** Where a segment's events holding given filter keys are: the byte offsets of their lines. */
export interface Postings {
  /**
   * Ascending offsets of the lines that may hold every key (a superset: the caller checks each
   * event); empty when the segment certainly holds none.
   */
  lookup(keys: readonly string[], files: HandlePool): Promise<ArrayLike<number>>;
}

/**
 * A list many times longer than the shortest one narrows little and costs its whole length to
 * read: it is left out of the intersection, and the events themselves are checked instead.
 */
export const narrowingRatio = 16;

/** A list longer than this moves from a JS array (8 bytes an entry) to a growing Uint32Array (4, off the JS heap). */
const shortList = 16;

/** A long posting list of the open segment: its capacity doubles as it grows. */
class LongList {
  private values: Uint32Array;
  private length: number;

  constructor(start: readonly number[]) {
    this.values = new Uint32Array(start.length * 4);
    this.values.set(start);
    this.length = start.length;
  }

  push(offset: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = offset;
  }

  /** The offsets so far: a view, so offsets pushed later are not in it. */
  view(): Uint32Array {
    return this.values.subarray(0, this.length);
  }
}

/** The postings of the segment being appended to, in memory: at most one segment's events. */
export class OpenPostings implements Postings {
  private readonly lists = new Map<string, number[] | LongList>();

  add(offset: number, keys: readonly string[]): void {
    for (const key of keys) {
      const list = this.lists.get(key);
      if (list === undefined) this.lists.set(key, [offset]);
      else if (!Array.isArray(list)) list.push(offset);
      else if (list.length < shortList) list.push(offset);
      else this.lists.set(key, new LongList([...list, offset]));
    }
  }

  /** Every key with its offsets, for the posting file. */
  *entries(): Generator<[string, ArrayLike<number>]> {
    for (const [key, list] of this.lists) yield [key, Array.isArray(list) ? list : list.view()];
  }

  lookup(keys: readonly string[]): Promise<ArrayLike<number>> {
    const lists: ArrayLike<number>[] = [];
    for (const key of keys) {
      const list = this.lists.get(key);
      if (!list) return Promise.resolve([]);
      lists.push(Array.isArray(list) ? list : list.view());
    }
    return Promise.resolve(intersect(worthReading(lists, (l) => l.length)));
  }
}

/** The lists worth intersecting: the shortest and those at most `narrowingRatio` times longer. */
export function worthReading<T>(items: readonly T[], count: (item: T) => number): T[] {
  const shortest = Math.min(...items.map(count));
  return items.filter((item) => count(item) <= Math.max(1, shortest) * narrowingRatio);
}

/** The offsets in every one of the ascending lists. */
export function intersect(lists: readonly ArrayLike<number>[]): ArrayLike<number> {
  if (lists.length === 0) return [];
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  let result: ArrayLike<number> = sorted[0];
  for (const other of sorted.slice(1)) {
    const next: number[] = [];
    let j = 0;
    for (let i = 0; i < result.length; i++) {
      const value = result[i];
      while (j < other.length && other[j] < value) j++;
      if (j < other.length && other[j] === value) next.push(value);
    }
    result = next;
  }
  return result;
}
