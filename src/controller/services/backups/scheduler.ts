import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/logger.js';
import type { BackupScheduleDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';
import type { ScheduleTimers } from '../../core/schedule-timers.js';
import { nextRun } from '../../core/cron.js';

/** Node's timers hold at most about 24.8 days; a later run is reached by waking up on the way. */
const longestTimerMs = 2 ** 31 - 1;

/**
 * One timer per schedule, armed for its `nextRunAt`. A run first moves `nextRunAt` on (so a
 * Controller that stops mid-run does not run it twice), then fires. At start, a schedule whose
 * `nextRunAt` passed while the Controller was down runs once, however many runs it missed.
 */
export class BackupScheduler {
  private readonly armed = new Map<string, unknown>();
  private stopped = false;

  constructor(
    private readonly repos: Repositories,
    private readonly clock: Clock,
    private readonly timers: ScheduleTimers,
    private readonly logger: Logger,
    private readonly fire: (schedule: BackupScheduleDoc) => Promise<void>,
  ) {}

  async start(): Promise<void> {
    for (const schedule of await this.repos.backupSchedules.find({})) await this.due(schedule);
  }

  stop(): void {
    this.stopped = true;
    for (const handle of this.armed.values()) this.timers.clearTimeout(handle);
    this.armed.clear();
  }

  arm(schedule: BackupScheduleDoc): void {
    this.disarm(schedule._id);
    if (this.stopped) return;
    const wait = Math.min(longestTimerMs, Math.max(0, new Date(schedule.nextRunAt).getTime() - this.clock.now().getTime()));
    this.armed.set(schedule._id, this.timers.setTimeout(() => {
      this.armed.delete(schedule._id);
      this.repos.backupSchedules.findById(schedule._id)
        .then((current) => (current ? this.due(current) : undefined))
        .catch((err: unknown) => this.logger.error({ err, scheduleId: schedule._id }, 'a backup schedule failed to run'));
    }, wait));
  }

  disarm(scheduleId: string): void {
    const handle = this.armed.get(scheduleId);
    if (handle === undefined) return;
    this.timers.clearTimeout(handle);
    this.armed.delete(scheduleId);
  }

  /** Runs the schedule if its time has come, and arms it for the next run. */
  private async due(schedule: BackupScheduleDoc): Promise<void> {
    const now = this.clock.now();
    if (new Date(schedule.nextRunAt) > now) {
      this.arm(schedule);
      return;
    }
    const next = nextRun(schedule.cron, now);
    if (!next) {
      this.logger.warn({ event: 'schedule_ended', scheduleId: schedule._id }, 'a backup schedule will not fire again');
      await this.repos.backupSchedules.update({ _id: schedule._id }, { lastRunAt: now.toISOString() });
      return;
    }
    const updated = { ...schedule, lastRunAt: now.toISOString(), nextRunAt: next.toISOString() };
    await this.repos.backupSchedules.update({ _id: schedule._id }, { lastRunAt: updated.lastRunAt, nextRunAt: updated.nextRunAt });
    this.arm(updated);
    await this.fire(updated);
  }
}
