import type { HandlePool } from './handle-pool.js';

/** Where a segment's events holding given filter keys are: the byte offsets of their lines. */
export interface Postings {
  /** Whether its lists include each target's kind and id as one key (files written before do not). */
  readonly indexesTargetPairs: boolean;
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
