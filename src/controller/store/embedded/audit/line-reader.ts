import type { FileHandle } from 'node:fs/promises';
import { readAt } from './handle-pool.js';

/** Offsets closer than this are read in one go: reading the bytes between costs less than another read. */
const gapBytes = 16 * 1024;
/** Bytes read past the last offset of a run: most events are a few hundred bytes. */
const lineGuess = 2048;

/**
 * The lines starting at the given offsets (in their order), each without its newline; none reaches
 * `end`. Nearby offsets are read together, runs in parallel; a line longer than the guess is read again whole.
 */
export async function readLinesAt(handle: FileHandle, offsets: readonly number[], end: number): Promise<string[]> {
  const sorted = [...offsets].sort((a, b) => a - b);
  const runs: number[][] = [];
  for (const offset of sorted) {
    const run = runs.at(-1);
    if (run && offset - run.at(-1)! <= gapBytes) run.push(offset);
    else runs.push([offset]);
  }
  const lines = new Map<number, string>();
  await Promise.all(
    runs.map(async (run) => {
      const start = run[0];
      const buffer = await readRange(handle, start, Math.min(end, run.at(-1)! + lineGuess));
      for (const offset of run) {
        const nl = buffer.indexOf(0x0a, offset - start);
        lines.set(offset, nl >= 0 ? buffer.toString('utf8', offset - start, nl) : await readLongLine(handle, offset, end));
      }
    }),
  );
  return offsets.map((offset) => lines.get(offset)!);
}

async function readRange(handle: FileHandle, from: number, to: number): Promise<Buffer> {
  return readAt(handle, Buffer.allocUnsafe(Math.max(0, to - from)), from);
}

async function readLongLine(handle: FileHandle, offset: number, end: number): Promise<string> {
  for (let length = lineGuess * 4; ; length *= 4) {
    const buffer = await readRange(handle, offset, Math.min(end, offset + length));
    const nl = buffer.indexOf(0x0a);
    if (nl >= 0) return buffer.toString('utf8', 0, nl);
    if (offset + length >= end) return buffer.toString('utf8');
  }
}
