import { createReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Clock } from '../../../shared/clock.js';
import type { AuditEventRecord, AuditLog, AuditQuery, NewAuditEvent } from '../records.js';
import { cutTornTail, type StoreRepair } from './torn-tail.js';

type IndexedField = 'actorUserId' | 'targetKind' | 'targetId' | 'action' | 'outcome';
const indexedFields: IndexedField[] = ['actorUserId', 'targetKind', 'targetId', 'action', 'outcome'];

/**
 * The embedded audit log: one append-only JSON-lines file, loaded into memory at start.
 * Events are kept in id order, which is also occurredAt order (time is clamped to never go
 * back), so a newest-first search walks backwards from a binary-searched start and stops at
 * the `since` bound. Each equality filter has a position list; the shortest one drives the
 * walk, so a selective filter over a million events touches only its own events.
 */
export class AuditFileLog implements AuditLog {
  private readonly events: AuditEventRecord[] = [];
  private readonly positions = new Map<IndexedField, Map<string, number[]>>(indexedFields.map((f) => [f, new Map()]));
  private writeChain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly handle: FileHandle,
    private readonly clock: Clock,
  ) {}

  static async open(dir: string, clock: Clock, onRepair: (repair: StoreRepair) => void): Promise<AuditFileLog> {
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'audit-events.jsonl');
    const cut = await cutTornTail(file);
    if (cut > 0) onRepair({ file, dropped: `a half-written last event (${cut} bytes)` });
    const handle = await open(file, 'a');
    const log = new AuditFileLog(handle, clock);
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    const unreadable: number[] = [];
    let lineNumber = 0;
    for await (const line of lines) {
      lineNumber += 1;
      if (line.length === 0) continue;
      try {
        log.index(JSON.parse(line) as AuditEventRecord);
      } catch {
        unreadable.push(lineNumber);
      }
    }
    // One damaged event must not keep the Controller from starting; the operator learns which lines it skipped.
    if (unreadable.length > 0) onRepair({ file, dropped: `${unreadable.length} unreadable event line(s): ${unreadable.slice(0, 10).join(', ')}${unreadable.length > 10 ? ', …' : ''}` });
    return log;
  }

  private index(event: AuditEventRecord): void {
    const position = this.events.length;
    this.events.push(event);
    for (const field of indexedFields) {
      const value = event[field];
      if (value === undefined) continue;
      const byValue = this.positions.get(field)!;
      let list = byValue.get(value);
      if (!list) byValue.set(value, (list = []));
      list.push(position);
    }
  }

  async append(input: NewAuditEvent): Promise<AuditEventRecord> {
    const last = this.events.at(-1);
    let occurredAt = input.occurredAt ?? this.clock.now().toISOString();
    if (last && occurredAt < last.occurredAt) occurredAt = last.occurredAt;
    const event: AuditEventRecord = { ...input, id: (last?.id ?? 0) + 1, occurredAt };
    this.index(event);
    const line = JSON.stringify(event) + '\n';
    const write = this.writeChain.then(() => this.handle.appendFile(line));
    this.writeChain = write.catch(() => undefined);
    await write;
    return event;
  }

  /** First position whose value is >= bound (or > bound when `strict`), by a key read from events. */
  private lowerBound(count: number, keyAt: (i: number) => string | number, bound: string | number, strict = false): number {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const key = keyAt(mid);
      if (key < bound || (strict && key === bound)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async search(query: AuditQuery): Promise<AuditEventRecord[]> {
    let driver: number[] | undefined;
    for (const field of indexedFields) {
      const value = query[field];
      if (value === undefined) continue;
      const list = this.positions.get(field)!.get(value) ?? [];
      if (!driver || list.length < driver.length) driver = list;
    }
    const count = driver ? driver.length : this.events.length;
    const positionAt = driver ? (i: number) => driver[i] : (i: number) => i;
    const eventAt = (i: number) => this.events[positionAt(i)];

    let end = count;
    if (query.beforeId !== undefined) end = Math.min(end, this.lowerBound(count, (i) => eventAt(i).id, query.beforeId));
    if (query.until !== undefined) end = Math.min(end, this.lowerBound(count, (i) => eventAt(i).occurredAt, query.until));
    const start = query.since === undefined ? 0 : this.lowerBound(count, (i) => eventAt(i).occurredAt, query.since);

    const found: AuditEventRecord[] = [];
    for (let i = end - 1; i >= start && found.length < query.limit; i--) {
      const event = eventAt(i);
      if (indexedFields.every((f) => query[f] === undefined || event[f] === query[f])) found.push(event);
    }
    return found;
  }

  async close(): Promise<void> {
    await this.writeChain;
    await this.handle.close();
  }
}
