import type { ScheduleTimers } from '../../core/schedule-timers.js';
import type { ServiceDeps } from '../deps.js';

const dayMs = 24 * 3600_000;

/**
 * Deletes audit events older than the retention setting: once at start, then hourly. The store
 * drops what it can cheaply (the embedded store a day's file at a time), so an event may outlive
 * its retention by up to a day and an hour.
 */
export class AuditRetention {
  private timer: unknown;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly days: number,
    private readonly timers: ScheduleTimers,
    private readonly intervalMs = 3600_000,
  ) {}

  /** Does not wait for the first prune: a large backlog must not hold up the start. */
  start(): void {
    if (this.days === 0) return;
    this.stopped = false;
    this.tick();
  }

  private tick(): void {
    this.running = this.pruneNow().finally(() => {
      this.running = undefined;
      if (!this.stopped) this.timer = this.timers.setTimeout(() => this.tick(), this.intervalMs);
    });
  }

  async pruneNow(): Promise<void> {
    const before = new Date(this.deps.clock.now().getTime() - this.days * dayMs).toISOString();
    try {
      const removed = await this.deps.repos.audit.prune(before);
      if (removed > 0) this.deps.logger.info({ event: 'audit_pruned', removed, before, retentionDays: this.days }, `Audit retention: deleted ${removed} event(s) older than ${before}`);
    } catch (e) {
      this.deps.logger.error({ err: e, before }, 'audit retention prune failed');
    }
  }

  /** Waits for a prune under way, so the store is not closed beneath it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
    await this.running;
  }
}
