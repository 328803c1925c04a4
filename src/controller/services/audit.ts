import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import type { AuditScope } from '../http/audit-scope.js';
import type { Caller } from '../http/caller.js';
import { invalidRequest } from '../http/problem.js';
import type { ActorKind, AuditEventRecord, AuditOutcome, AuditQuery } from '../store/records.js';
import type { Access } from './access.js';
import type { ServiceDeps } from './deps.js';

export interface AuditSearch extends Omit<AuditQuery, 'beforeId' | 'limit'> {
  limit: number;
  cursor?: string;
}

const view = (e: AuditEventRecord) => ({ ...e, details: e.details ?? {} });

/** Writes and searches the audit log. Writes never fail a request: a failed write is logged loudly. */
export class AuditService {
  constructor(private readonly deps: ServiceDeps, private readonly access: Access) {}

  async record(scope: AuditScope, caller: Caller | undefined, outcome: AuditOutcome): Promise<void> {
    const actorKind: ActorKind = caller?.kind ?? 'USER';
    const actorUserId = caller?.user._id ?? scope.actorUserId;
    await this.write({
      actorKind,
      ...(actorUserId ? { actorUserId } : {}),
      action: scope.action,
      targetKind: scope.targetKind,
      targetId: scope.targetId,
      outcome: scope.outcome ?? outcome,
      details: scope.details,
    });
  }

  /** For events that no HTTP request caused: Agents (AGENT) and the Controller itself (SYSTEM). */
  async recordSystem(event: { actorKind: 'AGENT' | 'SYSTEM'; action: string; targetKind: string; targetId: string; outcome: AuditOutcome; details?: Record<string, unknown> }): Promise<void> {
    await this.write({ ...event, details: event.details ?? {} });
  }

  private async write(event: Parameters<ServiceDeps['repos']['audit']['append']>[0]): Promise<void> {
    try {
      await this.deps.repos.audit.append(event);
    } catch (e) {
      this.deps.logger.error({ err: e, action: event.action }, 'audit write failed');
    }
  }

  async search(caller: Caller, query: AuditSearch) {
    this.access.requireGlobalAdmin(caller);
    const { cursor, limit, ...filters } = query;
    let beforeId: number | undefined;
    if (cursor !== undefined) {
      const key = decodeCursor(cursor);
      if (typeof key !== 'number') throw invalidRequest('cursor: not a cursor of this list.');
      beforeId = key;
    }
    const since = filters.since === undefined ? undefined : new Date(filters.since).toISOString();
    const until = filters.until === undefined ? undefined : new Date(filters.until).toISOString();
    const rows = await this.deps.repos.audit.search({ ...filters, since, until, beforeId, limit: limit + 1 });
    const items = rows.slice(0, limit).map(view);
    return rows.length > limit ? { items, nextCursor: encodeCursor(items[items.length - 1].id) } : { items };
  }
}
