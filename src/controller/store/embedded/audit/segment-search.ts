import { open, type FileHandle } from 'node:fs/promises';
import type { AuditEventRecord, AuditQuery } from '../../records.js';
import { filterFields, matches, type Block } from './block.js';
import { parseLine, type Segment } from './segment.js';

interface Candidate {
  segment: Segment;
  block: Block;
  /** The block's length when the search began: the open block grows while the search reads. */
  length: number;
}

/**
 * Newest first through the segments' blocks, reading from disk only blocks whose ranges and Bloom
 * filter admit the query, until `limit` events are found. Which blocks exist, and how long the
 * open one is, is fixed when the call begins, so events written meanwhile are neither missed by
 * the caller's in-memory pass nor found twice.
 */
export async function searchSegments(segments: readonly Segment[], query: AuditQuery, keys: string[], limit: number): Promise<AuditEventRecord[]> {
  const candidates = plan(segments.map((segment) => ({ segment, blocks: segment.blocks.length, openLength: segment.blocks.at(-1)?.length ?? 0 })), query, keys);
  // The longest filter value is likely the rarest: only lines holding it are parsed.
  const needle = filterFields.flatMap((f) => (query[f] === undefined ? [] : [JSON.stringify(query[f])])).sort((a, b) => b.length - a.length).at(0);
  const needleBytes = needle === undefined ? undefined : Buffer.from(needle);
  const handles = new Map<Segment, FileHandle | undefined>();
  const found: AuditEventRecord[] = [];
  try {
    for (const { segment, block, length } of candidates) {
      if (!handles.has(segment)) handles.set(segment, await open(segment.file, 'r').catch(missingAsUndefined));
      const handle = handles.get(segment);
      // A segment pruned since the search began holds nothing to find.
      if (!handle) continue;
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, block.offset);
      for (const [start, end] of linesNewestFirst(buffer.subarray(0, bytesRead), needleBytes)) {
        const event = end > start ? parseLine(buffer.toString('utf8', start, end)) : undefined;
        if (event && matches(event, query)) found.push(event);
        if (found.length >= limit) break;
      }
      if (found.length >= limit) break;
    }
  } finally {
    for (const handle of handles.values()) await handle?.close();
  }
  return found;
}

/** [start, end) of each line, last line first; with a needle, only the lines that contain it. */
export function* linesNewestFirst(buffer: Buffer, needle?: Buffer): Generator<[number, number]> {
  let end = buffer.length;
  while (end > 0) {
    let start: number;
    let lineEnd: number;
    if (needle) {
      const from = end - needle.length;
      // A negative offset would count from the end of the buffer.
      if (from < 0) return;
      const hit = buffer.lastIndexOf(needle, from);
      if (hit < 0) return;
      start = buffer.lastIndexOf(0x0a, hit) + 1;
      lineEnd = buffer.indexOf(0x0a, hit);
      if (lineEnd < 0) lineEnd = buffer.length;
    } else {
      lineEnd = buffer[end - 1] === 0x0a ? end - 1 : end;
      start = lineEnd > 0 ? buffer.lastIndexOf(0x0a, lineEnd - 1) + 1 : 0;
    }
    yield [start, lineEnd];
    end = start;
  }
}

function* plan(snapshot: { segment: Segment; blocks: number; openLength: number }[], query: AuditQuery, keys: string[]): Generator<Candidate> {
  for (let s = snapshot.length - 1; s >= 0; s--) {
    const { segment, blocks, openLength } = snapshot[s];
    if (query.beforeId !== undefined && segment.firstId >= query.beforeId) continue;
    for (let b = blocks - 1; b >= 0; b--) {
      const block = segment.blocks[b];
      // Times never go back, so once a block ends before `since`, every older one does too.
      if (query.since !== undefined && !block.isEmpty && block.maxTime < query.since) return;
      if (block.mayMatch(query, keys)) yield { segment, block, length: b === blocks - 1 ? openLength : block.length };
    }
  }
}

function missingAsUndefined(e: unknown): undefined {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw e;
}
