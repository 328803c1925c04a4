import { open, type FileHandle } from 'node:fs/promises';
import type { AuditEventRecord, AuditQuery } from '../../records.js';
import { matches } from './block.js';
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
const maxParallelSegments = 16;

/**
 * Newest first through the segments until `limit` events are found. With filter values, each
 * segment's posting lists name the lines to read (its Bloom filter skips it without a read when
 * it holds none); without, its blocks are read whole, newest first, those outside the query's
 * ids and times skipped.
 */
export async function searchSegments(segments: readonly Segment[], query: AuditQuery, keys: string[], limit: number): Promise<AuditEventRecord[]> {
  const views = segments.map((segment) => ({ segment, blocks: segment.blocks.length, size: segment.size, postings: segment.postings }));
  const found: AuditEventRecord[] = [];
  if (keys.length === 0) await scanBlocks(views, query, limit, found);
  else await followPostings(views, query, keys, limit, found);
  return found;
}

async function followPostings(views: View[], query: AuditQuery, keys: string[], limit: number, found: AuditEventRecord[]): Promise<void> {
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
    const offsets = await Promise.all(batch.map(({ view }) => view.postings.lookup(keys)));
    for (const [i, { view, range }] of batch.entries()) {
      await readPostedEvents(view.segment.file, offsets[i], range, query, limit, found);
      if (found.length >= limit) return;
    }
    parallel = Math.min(parallel * 2, maxParallelSegments);
  }
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

/** Reads the posted lines in `[from, to)`, newest first, a page's worth at a time, keeping those that match. */
async function readPostedEvents(file: string, offsets: ArrayLike<number>, [from, to]: [number, number], query: AuditQuery, limit: number, found: AuditEventRecord[]): Promise<void> {
  let i = offsets.length - 1;
  while (i >= 0 && offsets[i] >= to) i--;
  if (i < 0 || offsets[i] < from) return;
  const handle = await openIfPresent(file);
  if (!handle) return;
  try {
    while (i >= 0 && offsets[i] >= from && found.length < limit) {
      const chunk: number[] = [];
      for (const want = Math.max(8, limit - found.length); i >= 0 && offsets[i] >= from && chunk.length < want; i--) chunk.push(offsets[i]);
      for (const line of await readLinesAt(handle, chunk, to)) {
        const event = parseLine(line);
        if (event && matches(event, query)) found.push(event);
        if (found.length >= limit) return;
      }
    }
  } finally {
    await handle.close();
  }
}

async function scanBlocks(views: View[], query: AuditQuery, limit: number, found: AuditEventRecord[]): Promise<void> {
  const handles = new Map<Segment, FileHandle | undefined>();
  try {
    for (const { view, offset, length } of blocksNewestFirst(views, query)) {
      if (!handles.has(view.segment)) handles.set(view.segment, await openIfPresent(view.segment.file));
      const handle = handles.get(view.segment);
      if (!handle) continue;
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      for (const [start, end] of linesNewestFirst(buffer.subarray(0, bytesRead))) {
        const event = end > start ? parseLine(buffer.toString('utf8', start, end)) : undefined;
        if (event && matches(event, query)) found.push(event);
        if (found.length >= limit) return;
      }
    }
  } finally {
    for (const handle of handles.values()) await handle?.close();
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

/** A segment pruned since the search began holds nothing to find. */
async function openIfPresent(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
