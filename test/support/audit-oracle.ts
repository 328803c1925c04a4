import type { AuditEventRecord, AuditQuery } from '../../src/controller/store/records.js';

/** What an audit search must answer, computed the slow way over every event (newest first). */
export function expectedAuditIds(events: AuditEventRecord[], q: AuditQuery): number[] {
  return events
    .filter((e) => (q.beforeId === undefined || e.id < q.beforeId) && (q.since === undefined || e.occurredAt >= q.since) && (q.until === undefined || e.occurredAt < q.until))
    .filter((e) => (['actorUserId', 'targetKind', 'targetId', 'action', 'outcome'] as const).every((f) => q[f] === undefined || e[f] === q[f]))
    .map((e) => e.id)
    .reverse()
    .slice(0, q.limit);
}
