import type { Collection as DriverCollection, Db, Document } from 'mongodb';
import type { Clock } from '../../../shared/clock.js';
import type { AuditEventRecord, AuditLog, AuditQuery, NewAuditEvent } from '../records.js';

/** Audit events in MongoDB: integer ids from a counter document, compound indexes per filter. */
export class MongoAuditLog implements AuditLog {
  private constructor(
    private readonly events: DriverCollection<Document>,
    private readonly counters: DriverCollection<Document>,
    private readonly clock: Clock,
  ) {}

  static async open(db: Db, clock: Clock): Promise<MongoAuditLog> {
    const events = db.collection('auditEvents');
    for (const field of ['actorUserId', 'targetKind', 'targetId', 'action', 'outcome']) {
      await events.createIndex({ [field]: 1, _id: -1 });
    }
    await events.createIndex({ occurredAt: -1 });
    return new MongoAuditLog(events, db.collection('counters'), clock);
  }

  async append(input: NewAuditEvent): Promise<AuditEventRecord> {
    const counter = await this.counters.findOneAndUpdate(
      { _id: 'auditEvents' as never },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    const id = Number(counter?.seq);
    const event: AuditEventRecord = { ...input, id, occurredAt: input.occurredAt ?? this.clock.now().toISOString() };
    const { id: _omit, ...rest } = event;
    await this.events.insertOne({ _id: id as never, ...rest });
    return event;
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
    const rows = await this.events.find(filter).sort({ _id: -1 }).limit(query.limit).toArray();
    return rows.map(({ _id, ...rest }) => ({ id: Number(_id), ...rest }) as AuditEventRecord);
  }

  /**
   * Retention by the occurredAt index rather than a TTL index: occurredAt is stored as an ISO string,
   * which the TTL monitor ignores, and one prune for both adapters means no index option to reconcile
   * when the setting changes.
   */
  async prune(before: string): Promise<number> {
    const { deletedCount } = await this.events.deleteMany({ occurredAt: { $lt: before } });
    return deletedCount;
  }

  async close(): Promise<void> {}
}
