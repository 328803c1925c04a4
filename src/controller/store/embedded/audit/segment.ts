import { createReadStream } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { AuditEventRecord } from '../../records.js';
import { Block } from './block.js';
import { Bloom } from './bloom.js';

/**
 * One append-only file of audit events, one JSON line each, named by the id it starts at
 * (so an empty file still says which id comes next). Its blocks index it; a sealed segment
 * keeps that index beside it in `<file>.idx` so a restart does not read the events again.
 */
export class Segment {
  readonly blocks: Block[] = [];
  size = 0;
  events = 0;

  constructor(readonly file: string, readonly firstId: number) {}

  static fileName(firstId: number): string {
    return `${String(firstId).padStart(16, '0')}.jsonl`;
  }

  static idOfFileName(name: string): number | undefined {
    const m = /^(\d{16})\.jsonl$/.exec(name);
    return m ? Number(m[1]) : undefined;
  }

  get lastId(): number {
    for (let i = this.blocks.length - 1; i >= 0; i--) if (!this.blocks[i].isEmpty) return this.blocks[i].lastId;
    return 0;
  }

  get maxTime(): string {
    for (let i = this.blocks.length - 1; i >= 0; i--) if (!this.blocks[i].isEmpty) return this.blocks[i].maxTime;
    return '';
  }

  /** The UTC day of the first event: a segment holds one day at most, so retention drops whole files. */
  get day(): string | undefined {
    return this.blocks.find((b) => !b.isEmpty)?.minTime.slice(0, 10);
  }

  addLine(bytes: number, event: AuditEventRecord | undefined, blockLines: number): void {
    let block = this.blocks.at(-1);
    if (!block || block.lines >= blockLines) {
      block?.seal();
      block = new Block(this.size);
      this.blocks.push(block);
    }
    block.add(bytes, event);
    this.size += bytes;
    if (event) this.events += 1;
  }

  seal(): void {
    this.blocks.at(-1)?.seal();
  }

  /** Reads the file line by line into blocks; returns the 1-based numbers of lines that do not parse. */
  async scan(blockLines: number): Promise<number[]> {
    const unreadable: number[] = [];
    let lineNumber = 0;
    let rest: Buffer = Buffer.alloc(0);
    for await (const chunk of createReadStream(this.file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
        lineNumber += 1;
        const event = nl > start ? parseLine(data.toString('utf8', start, nl)) : undefined;
        if (nl > start && !event) unreadable.push(lineNumber);
        this.addLine(nl - start + 1, event, blockLines);
        start = nl + 1;
      }
      rest = data.subarray(start);
    }
    return unreadable;
  }

  async writeIndex(): Promise<void> {
    const index: SegmentIndex = {
      size: this.size,
      events: this.events,
      blocks: this.blocks.map((b) => ({ offset: b.offset, length: b.length, lines: b.lines, firstId: b.firstId, lastId: b.lastId, minTime: b.minTime, maxTime: b.maxTime, bloom: Buffer.from(b.bloom!.bits).toString('base64') })),
    };
    await writeFile(`${this.file}.idx.tmp`, JSON.stringify(index));
    await rename(`${this.file}.idx.tmp`, `${this.file}.idx`);
  }

  /** Loads the saved index when it describes the file as it is; false when it must be scanned instead. */
  async readIndex(fileSize: number): Promise<boolean> {
    let index: SegmentIndex;
    try {
      index = JSON.parse(await readFile(`${this.file}.idx`, 'utf8')) as SegmentIndex;
    } catch {
      return false;
    }
    if (index.size !== fileSize || !Array.isArray(index.blocks)) return false;
    for (const b of index.blocks) this.blocks.push(Block.sealed({ ...b, bloom: Bloom.fromBytes(Buffer.from(b.bloom, 'base64')) }));
    this.size = index.size;
    this.events = index.events;
    return true;
  }
}

interface SegmentIndex {
  size: number;
  events: number;
  blocks: { offset: number; length: number; lines: number; firstId: number; lastId: number; minTime: string; maxTime: string; bloom: string }[];
}

export function parseLine(line: string): AuditEventRecord | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const event = value as AuditEventRecord;
    return Number.isInteger(event.id) && typeof event.occurredAt === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
