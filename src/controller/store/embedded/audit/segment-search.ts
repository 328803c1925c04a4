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
  const needles = filterFields.flatMap((f) => (query[f] === undefined ? [] : [JSON.stringify(query[f])]));
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
      const lines = buffer.toString('utf8', 0, bytesRead).split('\n');
      for (let i = lines.length - 1; i >= 0 && found.length < limit; i--) {
        const line = lines[i];
        if (line.length === 0 || !needles.every((n) => line.includes(n))) continue;
        const event = parseLine(line);
        if (event && matches(event, query)) found.push(event);
      }
      if (found.length >= limit) break;
    }
  } finally {
    for (const handle of handles.values()) await handle?.close();
  }
  return found;
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
