import type { AuditEventRecord, AuditQuery } from '../../records.js';
import { matches } from './block.js';
import type { HandlePool } from './handle-pool.js';
import { readLinesAt } from './line-reader.js';
import type { Postings } from './postings.js';
import { parseLine, type Segment } from './segment.js';

/**
 * A segment as the search found it when it began: the open one grows while the search reads, so
 * its length, blocks and postings are fixed here, and events written meanwhile are neither missed
 * by the caller's in-memory pass nor found twice.
 */
interface View {
  segment: Segment;
  blocks: number;
  size: number;
  postings: Postings;
}

/** Segments searched at once at most, when the newest ones hold too few matches. */
const maxParallelSegments = 32;

/**
 * Newest first through the segments until `limit` events are found. With filter values, each
 * segment's posting lists name the lines to read (its Bloom filter skips it without a read when
 * it holds none); without, its blocks are read whole, newest first, those outside the query's
 * ids and times skipped.
 */
export async function searchSegments(segments: readonly Segment[], files: HandlePool, query: AuditQuery, keys: string[], limit: number): Promise<AuditEventRecord[]> {
  const views = segments.map((segment) => ({ segment, blocks: segment.blocks.length, size: segment.size, postings: segment.postings }));
  const found: AuditEventRecord[] = [];
  if (keys.length === 0) await scanBlocks(views, files, query, limit, found);
  else await followPostings(views, files, query, keys, limit, found);
  return found;
}

/**
 * A few segments at a time (twice as many each round), each one's posting lookup and newest page
 * of lines read at once, then taken in order; a segment with more candidates than a page reads
 * its next pages only when the found events still fall short.
 */
async function followPostings(views: View[], files: HandlePool, query: AuditQuery, keys: string[], limit: number, found: AuditEventRecord[]): Promise<void> {
  let parallel = 1;
  let s = views.length - 1;
  while (s >= 0 && found.length < limit) {
    const batch: { view: View; range: [number, number] }[] = [];
    for (; s >= 0 && batch.length < parallel; s--) {
      const view = views[s];
      if (query.beforeId !== undefined && view.segment.firstId >= query.beforeId) continue;
      // Times never go back, so once a segment ends before `since`, every older one does too.
      if (query.since !== undefined && view.segment.events > 0 && view.segment.maxTime < query.since) s = 0;
      const range = byteRange(view, query);
      if (range) batch.push({ view, range });
    }
    const page = Math.max(8, limit - found.length);
    const read = await Promise.all(
      batch.map(async ({ view, range }) => {
        const pages = pagesNewestFirst(await view.postings.lookup(keys, files), range, page);
        return { view, range, pages, lines: await readLines(files, view.segment.file, pages.next().value ?? [], range[1]) };
      }),
    );
    for (const { view, range, pages, lines } of read) {
      for (let next = lines; next.length > 0; next = await readLines(files, view.segment.file, pages.next().value ?? [], range[1])) {
        for (const line of next) {
          const event = parseLine(line);
          if (event && matches(event, query)) found.push(event);
          if (found.length >= limit) return;
        }
      }
    }
    parallel = Math.min(parallel * 2, maxParallelSegments);
  }
}

/** The ascending offsets inside `[from, to)`, newest first, `page` at a time. */
function* pagesNewestFirst(offsets: ArrayLike<number>, [from, to]: [number, number], page: number): Generator<number[], undefined> {
  const low = firstAtLeast(offsets, from);
  for (let i = firstAtLeast(offsets, to) - 1; i >= low; ) {
    const chunk: number[] = [];
    for (; i >= low && chunk.length < page; i--) chunk.push(offsets[i]);
    yield chunk;
  }
  return undefined;
}

function firstAtLeast(offsets: ArrayLike<number>, value: number): number {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (offsets[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

async function readLines(files: HandlePool, file: string, offsets: number[], end: number): Promise<string[]> {
  if (offsets.length === 0) return [];
  return (await files.use(file, (handle) => readLinesAt(handle, offsets, end))) ?? [];
}

/** The bytes of the segment whose blocks admit the query's ids and times; undefined when none do. */
function byteRange(view: View, query: AuditQuery): [number, number] | undefined {
  let from: number | undefined;
  let to = 0;
  for (let b = 0; b < view.blocks; b++) {
    const block = view.segment.blocks[b];
    if (!block.mayMatch(query)) continue;
    from ??= block.offset;
    to = block.offset + block.length;
  }
  return from === undefined ? undefined : [from, Math.min(to, view.size)];
}

async function scanBlocks(views: View[], files: HandlePool, query: AuditQuery, limit: number, found: AuditEventRecord[]): Promise<void> {
  for (const { view, offset, length } of blocksNewestFirst(views, query)) {
    const buffer = await files.use(view.segment.file, async (handle) => {
      const bytes = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(bytes, 0, length, offset);
      return bytes.subarray(0, bytesRead);
    });
    if (!buffer) continue;
    for (const [start, end] of linesNewestFirst(buffer)) {
      const event = end > start ? parseLine(buffer.toString('utf8', start, end)) : undefined;
      if (event && matches(event, query)) found.push(event);
      if (found.length >= limit) return;
    }
  }
}

function* blocksNewestFirst(views: View[], query: AuditQuery): Generator<{ view: View; offset: number; length: number }> {
  for (let s = views.length - 1; s >= 0; s--) {
    const view = views[s];
    if (query.beforeId !== undefined && view.segment.firstId >= query.beforeId) continue;
    for (let b = view.blocks - 1; b >= 0; b--) {
      const block = view.segment.blocks[b];
      if (query.since !== undefined && !block.isEmpty && block.maxTime < query.since) return;
      if (block.mayMatch(query)) yield { view, offset: block.offset, length: Math.min(block.length, view.size - block.offset) };
    }
  }
}

/** [start, end) of each line, last line first. */
export function* linesNewestFirst(buffer: Buffer): Generator<[number, number]> {
  let end = buffer.length;
  while (end > 0) {
    const lineEnd = buffer[end - 1] === 0x0a ? end - 1 : end;
    const start = lineEnd > 0 ? buffer.lastIndexOf(0x0a, lineEnd - 1) + 1 : 0;
    yield [start, lineEnd];
    end = start;
  }
}
