import { createReadStream } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { AuditEventRecord } from '../../records.js';
import { Block, eventKeys } from './block.js';
import { encodePostings, SealedPostings } from './posting-file.js';
import { OpenPostings } from './open-postings.js';
import type { Postings } from './postings.js';

/**
 * One append-only file of audit events, one JSON line each, named by the id it starts at
 * (so an empty file still says which id comes next). Its blocks bound ids and times to byte
 * ranges; its posting lists say which lines hold each filter value. While it is appended to,
 * the postings are in memory; when it is sealed they are saved beside it (`<file>.post`), then its
 * blocks (`<file>.idx`), so a restart reads neither the events nor more than their headers.
 */
export class Segment {
  readonly blocks: Block[] = [];
  size = 0;
  events = 0;
  postings: Postings = new OpenPostings();

  constructor(readonly file: string, readonly firstId: number) {}

  static fileName(firstId: number): string {
    return `${String(firstId).padStart(16, '0')}.jsonl`;
  }

  static idOfFileName(name: string): number | undefined {
    const m = /^(\d{16})\.jsonl$/.exec(name);
    return m ? Number(m[1]) : undefined;
  }

  /** The files kept beside a segment, which go with it. */
  static companions(file: string): string[] {
    return [`${file}.post`, `${file}.idx`];
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
      block = new Block(this.size);
      this.blocks.push(block);
    }
    block.add(bytes, event);
    if (event && this.postings instanceof OpenPostings) this.postings.add(this.size, eventKeys(event));
    this.size += bytes;
    if (event) this.events += 1;
  }

  /** Reads the file line by line into blocks and postings; returns the 1-based numbers of lines that do not parse. */
  async scan(blockLines: number): Promise<number[]> {
    this.blocks.length = 0;
    this.size = 0;
    this.events = 0;
    this.postings = new OpenPostings();
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

  /**
   * Saves the postings, then the blocks, each written whole before it is renamed into place; from
   * then on the postings are read from the file and the memory they took is freed. A crash in
   * between leaves a segment without a valid `.post` or `.idx`, which the next start rebuilds.
   */
  async seal(): Promise<void> {
    if (this.postings instanceof OpenPostings) {
      const post = `${this.file}.post`;
      await writeFile(`${post}.tmp`, encodePostings(this.postings.entries(), this.size, this.events));
      await rename(`${post}.tmp`, post);
      const sealed = await SealedPostings.load(post, this.size);
      if (!sealed) throw new Error(`posting file ${post} did not read back`);
      this.postings = sealed;
    }
    const index: SegmentIndex = {
      size: this.size,
      events: this.events,
      blocks: this.blocks.map((b) => ({ offset: b.offset, length: b.length, lines: b.lines, firstId: b.firstId, lastId: b.lastId, minTime: b.minTime, maxTime: b.maxTime })),
    };
    await writeFile(`${this.file}.idx.tmp`, JSON.stringify(index));
    await rename(`${this.file}.idx.tmp`, `${this.file}.idx`);
  }

  /** Loads the saved blocks and postings when both describe the file as it is; false when it must be scanned instead. */
  async load(fileSize: number): Promise<boolean> {
    let index: SegmentIndex;
    try {
      index = JSON.parse(await readFile(`${this.file}.idx`, 'utf8')) as SegmentIndex;
    } catch {
      return false;
    }
    if (index.size !== fileSize || !Array.isArray(index.blocks)) return false;
    const postings = await SealedPostings.load(`${this.file}.post`, fileSize);
    if (!postings) return false;
    for (const b of index.blocks) this.blocks.push(Block.sealed(b));
    this.size = index.size;
    this.events = index.events;
    this.postings = postings;
    return true;
  }
}

interface SegmentIndex {
  size: number;
  events: number;
  blocks: { offset: number; length: number; lines: number; firstId: number; lastId: number; minTime: string; maxTime: string }[];
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
