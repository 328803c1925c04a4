import type { Collection as DriverCollection, Db, Document } from 'mongodb';
import type { Clock } from '../../../shared/clock.js';
import { withoutUndefined } from '../document-rules.js';
import type { AuditEventRecord, AuditLog, AuditQuery, NewAuditEvent } from '../records.js';
import { isDuplicateKey } from '../collection.js';
import { mapDriverError } from './mongo-documents.js';

/** Ids asked of the counter for one event before its insert gives up. */
const maxIdAttempts = 10;

/** Audit events in MongoDB: integer ids from a counter document, compound indexes per filter. */
export class MongoAuditLog implements AuditLog {
  private constructor(
    private readonly events: DriverCollection<Document>,
    private readonly counters: DriverCollection<Document>,
    private readonly clock: Clock,
  ) {}

  private tail: Promise<unknown> = Promise.resolve();

  static async open(db: Db, clock: Clock): Promise<MongoAuditLog> {
    const events = db.collection('auditEvents');
    for (const field of ['actorUserId', 'targetKind', 'targetId', 'action', 'outcome']) {
      await events.createIndex({ [field]: 1, _id: -1 });
    }
    await events.createIndex({ occurredAt: -1 });
    return new MongoAuditLog(events, db.collection('counters'), clock);
  }

  /**
   * Appends are chained within the process, so this Controller's events are stored in id order. The
   * counter document hands out the id and the time together: the time is the later of the clock and
   * the last one handed out, so neither ids nor times go backwards, whichever Controller writes.
   */
  append(input: NewAuditEvent): Promise<AuditEventRecord> {
    const appended = this.tail.then(() => this.appendNow(input));
    this.tail = appended.catch(() => undefined);
    return appended;
  }

  /**
   * FerretDB runs `findOneAndUpdate` as a read and a write, so two Controllers can be handed the
   * same id, and one's write can even set the counter back below ids already used: the one whose
   * insert finds its id taken moves the counter past the highest stored id and asks again.
   */
  private async appendNow(input: NewAuditEvent): Promise<AuditEventRecord> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendOnce(input);
      } catch (e) {
        if (!(isDuplicateKey(e) && e.field === '_id') || attempt === maxIdAttempts) throw e;
        const [highest] = await this.events.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray().catch(mapDriverError);
        await this.counters.updateOne({ _id: 'auditEvents' as never }, { $max: { seq: Number(highest._id) } }).catch(mapDriverError);
      }
    }
  }

  private async appendOnce(input: NewAuditEvent): Promise<AuditEventRecord> {
    const now = this.clock.now().toISOString();
    try {
      const counter = await this.counters.findOneAndUpdate(
        { _id: 'auditEvents' as never },
        // Update operators, not a pipeline: FerretDB has none, and ISO times order as strings.
        { $inc: { seq: 1 }, $max: { at: now } },
        { upsert: true, returnDocument: 'after' },
      );
      const event: AuditEventRecord = { ...input, id: Number(counter?.seq), occurredAt: input.occurredAt ?? String(counter?.at ?? now) };
      const { id, details, ...rest } = event;
      await this.events.insertOne(withoutUndefined({ _id: id as never, ...rest, detailsJson: JSON.stringify(details) }));
      return event;
    } catch (e) {
      mapDriverError(e);
    }
  }

  async search(query: AuditQuery): Promise<AuditEventRecord[]> {
    const filter: Document = {};
    for (const field of ['actorUserId', 'targetKind', 'targetId', 'action', 'outcome'] as const) {
      if (query[field] !== undefined) filter[field] = query[field];
    }
    if (query.beforeId !== undefined) filter._id = { $lt: query.beforeId };
    if (query.since !== undefined || query.until !== undefined) {
      filter.occurredAt = {
        ...(query.since !== undefined ? { $gte: query.since } : {}),
        ...(query.until !== undefined ? { $lt: query.until } : {}),
      };
    }
    const rows = await this.events.find(filter).sort({ _id: -1 }).limit(query.limit).toArray().catch(mapDriverError);
    // Details are kept as JSON text: their keys may hold dots (file names, properties), which FerretDB refuses in a document.
    // Events written before keep theirs as a document.
    return rows.map(({ _id, detailsJson, details, ...rest }) => ({ id: Number(_id), ...rest, details: (typeof detailsJson === 'string' ? JSON.parse(detailsJson) : details) as unknown }) as AuditEventRecord);
  }

  /**
   * Retention by the occurredAt index rather than a TTL index: occurredAt is stored as an ISO string,
   * which the TTL monitor ignores, and one prune for both adapters means no index option to reconcile
   * when the setting changes.
   */
  async prune(before: string): Promise<number> {
    const { deletedCount } = await this.events.deleteMany({ occurredAt: { $lt: before } }).catch(mapDriverError);
    return deletedCount;
  }

  async close(): Promise<void> {}
}
