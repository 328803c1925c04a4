import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/logger.js';
import type { BackupScheduleDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';
import { KeyedAlarms } from '../../core/keyed-alarms.js';
import type { ScheduleTimers } from '../../core/schedule-timers.js';
import { nextRun } from '../../core/cron.js';
import { RecentRecords } from '../leases/recent-records.js';


/**
 * One timer per schedule, armed for its `nextRunAt`. A run first moves `nextRunAt` on (so a
 * Controller that stops mid-run does not run it twice), then fires. At start, a schedule whose
 * `nextRunAt` passed while the Controller was down runs once, however many runs it missed. A
 * fleet-wide job: nothing is armed until it starts, which on a shared store is where its lease is.
 */
export class BackupScheduler {
  private readonly alarms: KeyedAlarms;
  private stopped = true;
  /** With several Controllers: the schedules created through the others, armed here too. */
  private readonly others?: RecentRecords<BackupScheduleDoc>;

  constructor(
    private readonly repos: Repositories,
    private readonly clock: Clock,
    timers: ScheduleTimers,
    private readonly logger: Logger,
    private readonly fire: (schedule: BackupScheduleDoc) => Promise<void>,
    followEveryMs?: number,
  ) {
    this.alarms = new KeyedAlarms(timers, clock);
    if (followEveryMs !== undefined) {
      this.others = new RecentRecords('backup schedules', (since) => repos.backupSchedules.find({ createdAt: { $gte: since } }), (s) => s.createdAt, (s) => this.arm(s), { clock, logger }, followEveryMs);
    }
  }

  async start(): Promise<void> {
    this.stopped = false;
    for (const schedule of await this.repos.backupSchedules.find({})) await this.due(schedule);
    this.others?.start();
  }

  stop(): void {
    this.stopped = true;
    this.others?.stop();
    this.alarms.clear();
  }

  arm(schedule: BackupScheduleDoc): void {
    if (this.stopped) return this.disarm(schedule._id);
    this.alarms.arm(schedule._id, new Date(schedule.nextRunAt), () => {
      this.repos.backupSchedules.findById(schedule._id)
        .then((current) => (current ? this.due(current) : undefined))
        .catch((err: unknown) => this.logger.error({ err, scheduleId: schedule._id }, 'a backup schedule failed to run'));
    });
  }

  disarm(scheduleId: string): void {
    this.alarms.disarm(scheduleId);
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
