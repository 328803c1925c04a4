import type { AuditScope } from '../../core/audit-scope.js';
import { DomainError } from '../../core/errors.js';
import { StoreFullError } from '../../core/store-full.js';
import type { Caller } from '../../core/caller.js';
import { paginate } from '../../domain/cursor.js';
import type { ActorKind, AuditEventRecord, AuditOutcome, AuditQuery } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';

export interface AuditSearch extends Omit<AuditQuery, 'beforeId' | 'limit'> {
  limit: number;
  cursor?: string;
}

/**
 * Writes and searches the audit log. A failed write is logged loudly; it fails the request only
 * when `required` (a change the request made and is about to acknowledge), so no change is answered
 * as a success without its event. A full disk never gets that far: an audited request starts only
 * once room for its event is set aside (`makeRoom`), and an event that does not fit is written into
 * that room. So a refusal means nothing changed, and a success means changed and audited.
 */
export class AuditService {
  /**
   * `requireGlobalAdmin` is identity's check, passed in: audit is the bottom capability, which
   * every other one records to, so it imports none of them.
   */
  constructor(private readonly deps: ServiceDeps, private readonly requireGlobalAdmin: (caller: Caller) => void) {}

  async record(scope: AuditScope, caller: Caller | undefined, outcome: AuditOutcome, required = false): Promise<void> {
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
    }, required);
  }

  /** Before an audited request changes anything: throws a StoreFullError (507, nothing stored) when its event might find no room. */
  makeRoom(): Promise<void> {
    return this.deps.repos.auditRoom.hold();
  }

  /** For events that no HTTP request caused: Agents (AGENT) and the Controller itself (SYSTEM). */
  async recordSystem(event: { actorKind: 'AGENT' | 'SYSTEM'; action: string; targetKind: string; targetId: string; outcome: AuditOutcome; details?: Record<string, unknown> }): Promise<void> {
    await this.write({ ...event, details: event.details ?? {} });
  }

  /** An event the service assembled itself (aggregated sign-in refusals); never fails the caller. */
  async recordEvent(event: Parameters<ServiceDeps['repos']['audit']['append']>[0]): Promise<void> {
    await this.write(event);
  }

  private async write(event: Parameters<ServiceDeps['repos']['audit']['append']>[0], required = false): Promise<void> {
    try {
      try {
        await this.deps.repos.audit.append(event);
      } catch (e) {
        if (!(e instanceof StoreFullError && required && (await this.deps.repos.auditRoom.release()))) throw e;
        this.deps.logger.warn({ action: event.action, targetId: event.targetId }, 'the disk is full: an audit event is written into the room kept for it; audited changes are refused until there is room again');
        await this.deps.repos.audit.append(event);
      }
    } catch (e) {
      this.deps.logger.error({ err: e, action: event.action, targetId: event.targetId }, 'audit write failed');
      if (!required) return;
      // The change itself is stored: the caller must learn that it was made, and that its event is missing.
      if (e instanceof StoreFullError) throw new DomainError('insufficient_storage', `The change was made, but the Controller's disk is full: its audit event (${event.action}) could not be stored.`);
      throw e;
    }
  }

  async search(caller: Caller, query: AuditSearch) {
    this.requireGlobalAdmin(caller);
    const { cursor, limit, ...filters } = query;
    const since = filters.since === undefined ? undefined : new Date(filters.since).toISOString();
    const until = filters.until === undefined ? undefined : new Date(filters.until).toISOString();
    // Newest first: the cursor's key is the id the next page ends before.
    const page = await paginate<AuditEventRecord, number>(
      { limit, cursor },
      (beforeId, n) => this.deps.repos.audit.search({ ...filters, since, until, beforeId, limit: n }),
      (e) => e.id,
      (key): key is number => typeof key === 'number',
    );
    return page;
  }
}
