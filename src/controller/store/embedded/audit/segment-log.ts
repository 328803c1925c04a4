import { mkdir, open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../../../shared/clock.js';
import type { AuditEventRecord, AuditLog, AuditQuery, NewAuditEvent } from '../../records.js';
import { asStoreError } from '../../../core/store-full.js';
import { syncDirectory, type AppendOutcome } from '../batched-append.js';
import { cutTornTail, type StoreRepair } from '../torn-tail.js';
import { queryKeys, matches } from './block.js';
import { HandlePool } from './handle-pool.js';
import { searchSegments } from './segment-search.js';
import { Segment } from './segment.js';

export interface SegmentLogOptions {
  /** Lines per block: the unit a search reads from disk (default 1,024). */
  blockLines?: number;
  /** Events per segment file at most (default 131,072); a new file also starts each UTC day. */
  segmentEvents?: number;
  /** Hears whether each append got to disk (the store's writability). */
  onOutcome?: (outcome: AppendOutcome) => void;
}

/** Bytes per segment file at most: posting lists name lines by 32-bit offsets. */
const segmentBytes = 2 ** 30;

interface Batch {
  segment: Segment;
  lines: string[];
  events: AuditEventRecord[];
  writing: boolean;
  settle: { resolve(): void; reject(e: unknown): void };
  done: Promise<void>;
}

/**
 * The embedded audit log: append-only segment files under `<store>/audit`, one UTC day (or
 * `segmentEvents` events, or 1 GiB) each. Memory holds each block's id and time range and, per
 * sealed segment, a Bloom filter and the bucket table of its posting file; the open segment's
 * posting lists stay in memory until it is sealed. A search reads only the lines that may match.
 * Appends are grouped into one write per turn of the event loop; ids and occurredAt are assigned
 * when `append` is called, so they never go backwards, however many writes are in flight.
 */
export class AuditSegmentLog implements AuditLog {
  private readonly batches: Batch[] = [];
  private readonly files = new HandlePool(1024);
  private flushing?: Promise<void>;
  private activeDay?: string;
  private activeCount: number;
  private activeBytes: number;

  private constructor(
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly segments: Segment[],
    private writing: { segment: Segment; handle: FileHandle },
    private nextId: number,
    private lastTime: string,
    private readonly blockLines: number,
    private readonly segmentEvents: number,
    private readonly onOutcome: (outcome: AppendOutcome) => void,
  ) {
    this.activeDay = writing.segment.day;
    this.activeCount = writing.segment.events;
    this.activeBytes = writing.segment.size;
  }

  static async open(dir: string, clock: Clock, onRepair: (repair: StoreRepair) => void, options: SegmentLogOptions = {}): Promise<AuditSegmentLog> {
    const blockLines = options.blockLines ?? 1024;
    const segmentEvents = options.segmentEvents ?? 131_072;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const names = await readdir(dir);
    for (const name of names) if (name.endsWith('.tmp')) await unlink(join(dir, name));
    // A crash while pruning can leave a segment's companions behind it.
    const present = new Set(names);
    for (const name of names) {
      const companion = /^(.*\.jsonl)\.(idx|post)$/.exec(name);
      if (companion && !present.has(companion[1])) await unlink(join(dir, name));
    }
    const segments = names
      .map((name) => ({ name, id: Segment.idOfFileName(name) }))
      .filter((n): n is { name: string; id: number } => n.id !== undefined)
      .sort((a, b) => a.id - b.id)
      .map((n) => new Segment(join(dir, n.name), n.id));
    for (const [i, segment] of segments.entries()) {
      const last = i === segments.length - 1;
      if (!last && (await segment.load((await stat(segment.file)).size))) continue;
      const cut = await cutTornTail(segment.file);
      if (cut > 0) onRepair({ file: segment.file, dropped: `a half-written last event (${cut} bytes)` });
      const unreadable = await segment.scan(blockLines);
      // One damaged event must not keep the Controller from starting; the operator learns which lines it skipped.
      if (unreadable.length > 0) onRepair({ file: segment.file, dropped: `${unreadable.length} unreadable event line(s): ${unreadable.slice(0, 10).join(', ')}${unreadable.length > 10 ? ', …' : ''}` });
      // Sealed without its posting file or index (a crash in between, or an earlier version): rebuilt now.
      if (!last) await segment.seal();
    }
    const nextId = segments.reduce((n, s) => Math.max(n, s.lastId + 1, s.firstId), 1);
    if (segments.length === 0) segments.push(new Segment(join(dir, Segment.fileName(nextId)), nextId));
    const active = segments.at(-1)!;
    const handle = await open(active.file, 'a', 0o600);
    await syncDirectory(dir);
    const lastTime = segments.reduce((t, s) => (s.maxTime > t ? s.maxTime : t), '');
    return new AuditSegmentLog(dir, clock, segments, { segment: active, handle }, nextId, lastTime, blockLines, segmentEvents, options.onOutcome ?? (() => undefined));
  }

  async append(input: NewAuditEvent): Promise<AuditEventRecord> {
    let occurredAt = input.occurredAt ?? this.clock.now().toISOString();
    if (occurredAt < this.lastTime) occurredAt = this.lastTime;
    const event: AuditEventRecord = { ...input, id: this.nextId, occurredAt };
    await this.enqueue(event);
    return event;
  }

  /** Takes an event that already has its id and time (an import); ids at or below the last one are skipped. */
  importEvent(event: AuditEventRecord): Promise<void> | undefined {
    if (event.id < this.nextId) return undefined;
    return this.enqueue({ ...event, occurredAt: event.occurredAt < this.lastTime ? this.lastTime : event.occurredAt });
  }

  private enqueue(event: AuditEventRecord): Promise<void> {
    this.nextId = event.id + 1;
    this.lastTime = event.occurredAt;
    const day = event.occurredAt.slice(0, 10);
    const line = JSON.stringify(event) + '\n';
    const bytes = Buffer.byteLength(line);
    let segment = this.segments.at(-1)!;
    if (this.activeCount >= this.segmentEvents || this.activeBytes + bytes > segmentBytes || (this.activeDay !== undefined && this.activeDay !== day)) {
      segment = new Segment(join(this.dir, Segment.fileName(event.id)), event.id);
      this.segments.push(segment);
      this.activeCount = 0;
      this.activeBytes = 0;
    }
    this.activeDay = day;
    this.activeCount += 1;
    this.activeBytes += bytes;
    let batch = this.batches.at(-1);
    if (!batch || batch.writing || batch.segment !== segment) {
      let settle!: Batch['settle'];
      const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      batch = { segment, lines: [], events: [], writing: false, settle, done };
      this.batches.push(batch);
    }
    batch.lines.push(line);
    batch.events.push(event);
    this.flushing ??= this.flush();
    return batch.done;
  }

  private async flush(): Promise<void> {
    // Let every append of this turn join the first write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.batches.length > 0) {
      const batch = this.batches[0];
      batch.writing = true;
      try {
        if (batch.segment !== this.writing.segment) await this.switchTo(batch.segment);
        await this.writing.handle.write(batch.lines.join(''));
        // An event is answered as written only once it would survive a power cut.
        await this.writing.handle.datasync();
        batch.lines.forEach((line, i) => batch.segment.addLine(Buffer.byteLength(line), batch.events[i], this.blockLines));
        this.batches.shift();
        batch.settle.resolve();
        this.onOutcome({ ok: true });
      } catch (e) {
        this.batches.shift();
        batch.settle.reject(asStoreError(e));
        this.onOutcome({ ok: false, error: e });
        // A partial write would shift every later offset: cut the file back to what the index knows.
        await this.writing.handle.truncate(this.writing.segment.size).catch(() => undefined);
      }
    }
    this.flushing = undefined;
  }

  /** Seals the segment written so far (its postings and index saved beside it) and starts appending to the next. */
  private async switchTo(segment: Segment): Promise<void> {
    const previous = this.writing;
    const handle = await open(segment.file, 'a', 0o600);
    this.writing = { segment, handle };
    // The new file's name is durable only once its directory is synced.
    await syncDirectory(this.dir);
    await previous.handle.close();
    await previous.segment.seal();
  }

  async search(query: AuditQuery): Promise<AuditEventRecord[]> {
    const found: AuditEventRecord[] = [];
    // Not yet written: the newest events of all, in memory.
    for (let b = this.batches.length - 1; b >= 0 && found.length < query.limit; b--) {
      const events = this.batches[b].events;
      for (let i = events.length - 1; i >= 0 && found.length < query.limit; i--) if (matches(events[i], query)) found.push(events[i]);
    }
    if (found.length >= query.limit) return found;
    return found.concat(await searchSegments(this.segments, this.files, query, queryKeys(query), query.limit - found.length));
  }

  /**
   * Deletes every segment whose newest event is older than `before`, a UTC day's file at a time.
   * A segment still being appended to is first closed by starting an empty one named by the next
   * id, so the ids carry on across a restart even when everything was pruned.
   */
  async prune(before: string): Promise<number> {
    const active = this.segments.at(-1)!;
    if (active.events > 0 && active.maxTime < before && this.batches.length === 0 && !this.flushing) {
      const next = new Segment(join(this.dir, Segment.fileName(this.nextId)), this.nextId);
      this.segments.push(next);
      this.activeCount = 0;
      this.activeBytes = 0;
      this.activeDay = undefined;
      await this.switchTo(next);
    }
    let removed = 0;
    for (const segment of this.segments.slice(0, -1)) {
      if (segment.maxTime >= before || segment === this.writing.segment || this.batches.some((b) => b.segment === segment)) continue;
      this.segments.splice(this.segments.indexOf(segment), 1);
      removed += segment.events;
      // The segment first: companions left by a crash here are deleted at the next start.
      await unlink(segment.file).catch(ignoreMissing);
      for (const companion of Segment.companions(segment.file)) await unlink(companion).catch(ignoreMissing);
      for (const file of [segment.file, ...Segment.companions(segment.file)]) this.files.forget(file);
    }
    return removed;
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.writing.handle.close();
    await this.files.closeAll();
  }
}

function ignoreMissing(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
}
