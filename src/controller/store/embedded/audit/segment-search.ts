import type { AuditEventRecord, AuditQuery } from '../../records.js';
import { matches, type SearchKeys } from './block.js';
import { readAt, type HandlePool } from './handle-pool.js';
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

/** Segments read ahead at most, when the newest ones hold too few matches. */
const maxParallelSegments = 32;

/**
 * Newest first through the segments until `limit` events are found. With filter values, each
 * segment's posting lists name the lines to read (its Bloom filter skips it without a read when
 * it holds none); without, its blocks are read whole, newest first, those outside the query's
 * ids and times skipped.
 */
export async function searchSegments(segments: readonly Segment[], files: HandlePool, query: AuditQuery, keys: SearchKeys, limit: number): Promise<AuditEventRecord[]> {
  const views = segments.map((segment) => ({ segment, blocks: segment.blocks.length, size: segment.size, postings: segment.postings }));
  const found: AuditEventRecord[] = [];
  if (keys.withoutTargetPairs.length === 0) await scanBlocks(views, files, query, limit, found);
  else await followPostings(views, files, query, keys, limit, found);
  return found;
}

interface FirstPage {
  view: View;
  range: [number, number];
  pages: Generator<number[], undefined>;
  lines: string[];
}

/**
 * A window of segments read ahead, newest first (it doubles with each segment taken, to
 * `maxParallelSegments`): each one's posting lookup and then newest page of lines, started as soon
 * as a segment leaves the window, so a rare value's days are read concurrently rather than one by
 * one and no day waits for a slower one. They are taken in order; a segment with more candidates
 * than a page reads its next pages only when the found events still fall short, and reads ahead
 * are dropped once the page is full.
 */
async function followPostings(views: View[], files: HandlePool, query: AuditQuery, keys: SearchKeys, limit: number, found: AuditEventRecord[]): Promise<void> {
  const firstPage = async (view: View, range: [number, number]): Promise<FirstPage> => {
    const own = view.postings.indexesTargetPairs ? keys.withTargetPairs : keys.withoutTargetPairs;
    const pages = pagesNewestFirst(await view.postings.lookup(own, files), range, Math.max(8, limit - found.length));
    return { view, range, pages, lines: await readLines(files, view.segment.file, pages.next().value ?? [], range[1]) };
  };
  const candidates = candidatesNewestFirst(views, query);
  const ahead: Promise<FirstPage>[] = [];
  let window = 1;
  const refill = () => {
    for (let next; ahead.length < window && !(next = candidates.next()).done; ) ahead.push(firstPage(next.value.view, next.value.range));
  };
  try {
    for (refill(); ahead.length > 0; refill()) {
      const { view, range, pages, lines } = await ahead.shift()!;
      for (let next = lines; next.length > 0; next = await readLines(files, view.segment.file, pages.next().value ?? [], range[1])) {
        for (const line of next) {
          const event = parseLine(line);
          if (event && matches(event, query)) found.push(event);
          if (found.length >= limit) return;
        }
      }
      window = Math.min(window * 2, maxParallelSegments);
    }
  } finally {
    // Read ahead but not needed (or the search failed): their answers, or failures, are dropped.
    for (const read of ahead) read.catch(() => undefined);
  }
}

/** The segments, newest first, whose blocks admit the query's ids and times, with those blocks' bytes. */
function* candidatesNewestFirst(views: View[], query: AuditQuery): Generator<{ view: View; range: [number, number] }> {
  for (let s = views.length - 1; s >= 0; s--) {
    const view = views[s];
    if (query.beforeId !== undefined && view.segment.firstId >= query.beforeId) continue;
    const range = byteRange(view, query);
    if (range) yield { view, range };
    // Times never go back, so once a segment ends before `since`, every older one does too.
    if (query.since !== undefined && view.segment.events > 0 && view.segment.maxTime < query.since) return;
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
    const buffer = await files.use(view.segment.file, (handle) => readAt(handle, Buffer.allocUnsafe(length), offset));
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
