import pMap from 'p-map';

/**
 * Files a copy moves at once. With one at a time a copy waited a round trip over the link per
 * 4 MiB read and per 1 MiB write; with four, one file's round trip overlaps the others' bytes.
 * Each holds at most two read ranges (8 MiB) and one write chunk, so a copy holds about 40 MiB
 * whatever the world's size.
 */
export const filesInFlight = 4;

/** Runs `each` over `items` with at most `filesInFlight` at once; the first failure ends it (the others finish first). */
export async function eachFile<T>(items: Iterable<T>, each: (item: T) => Promise<void>): Promise<void> {
  await pMap(items, each, { concurrency: filesInFlight, stopOnError: true });
}
