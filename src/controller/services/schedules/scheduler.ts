import { setMaxListeners } from 'node:events';
import { nextRun, previousRun } from '../../core/cron.js';
import { KeyedAlarms } from '../../core/keyed-alarms.js';
import { RecentRecords } from '../leases/recent-records.js';
import type { ScheduleTimers } from '../../core/schedule-timers.js';
import type { ScheduleDoc, ScheduleRunDoc } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { GoAhead, RunExecutor } from './run-executor.js';
import { minuteKey, type RunRecords } from './run-records.js';
import { RunWaits } from './run-waits.js';

/** How often the holder of the schedules sweeps runs left by Controllers gone since it took the job. */
const sweepEveryMs = 20_000;
/**
 * Runs younger than this are not swept: a Controller serves requests (a run asked for now) a
 * moment before its own lease is in the store, so its id may not be among the live ones yet.
 */
const freshRunMs = 10_000;

/** What stops every run at shutdown: the workflow runner's one signal. */
export interface StopSignal {
  readonly signal: AbortSignal;
  readonly stopped: boolean;
}

/**
 * One timer per enabled schedule, armed for its next minute in its time zone, at start and on
 * every change. When it fires, the minute is claimed in the store (a run record inserted) before
 * anything runs, so one minute runs once whichever Controller or life of one fires it; the next
 * minute is armed before the run starts. At start, runs a dead process left RUNNING end
 * `interrupted`, and a schedule whose latest minute passed while no Controller was up gets one
 * MISSED record for it, never a late run. It is a fleet-wide job: with several Controllers on one
 * store only the holder of its lease starts it (and sweeps, at its start and every 20 s after);
 * until then nothing is armed here. A
 * run records the Controller carrying it out, and the sweep leaves a live one's runs alone (a run
 * asked for on another Controller, or one under way where the lease was lost).
 */
export class ScheduleScheduler {
  private readonly alarms: KeyedAlarms;
  /** With several Controllers: sweeps, while this one holds the job, the runs of Controllers that died since it took it. */
  private sweeper?: NodeJS.Timeout;
  /** The sweep under way, which a stop waits for. */
  private sweeping?: Promise<void>;
  private readonly underWay = new Set<Promise<unknown>>();
  private active = false;
  /** With several Controllers: the schedules created or edited through the others, armed here too. */
  private readonly others?: RecentRecords<ScheduleDoc>;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly timers: ScheduleTimers,
    private readonly records: RunRecords,
    private readonly executor: RunExecutor,
    private readonly changes: ServerChangeHub,
    private readonly stopping: StopSignal,
    /** The ids of the live Controllers sharing the store (this one among them). */
    private readonly alive: () => Promise<ReadonlySet<string>>,
    followEveryMs?: number,
  ) {
    // Every wait of every run under way listens to the stop signal: a thousand runs on one minute are a thousand listeners.
    setMaxListeners(0, stopping.signal);
    this.alarms = new KeyedAlarms(timers, deps.clock);
    if (followEveryMs !== undefined) {
      this.others = new RecentRecords('schedules', (since) => deps.repos.schedules.find({ updatedAt: { $gte: since } }), (s) => s.updatedAt, (s) => this.arm(s), deps, followEveryMs);
    }
  }

  async start(): Promise<void> {
    this.active = true;
    await this.records.interrupted(await this.alive());
    const now = this.deps.clock.now();
    for (const schedule of await this.deps.repos.schedules.find({ enabled: true }, { sort: { _id: 1 } })) {
      const missed = previousRun(schedule.cron, now, schedule.timezone);
      // A duplicate claim is a minute a Controller did run: only one nobody claimed is missed.
      if (missed && missed.toISOString() > schedule.dueSince) await this.records.claim(schedule, minuteKey(schedule._id, missed), missed, 'MISSED');
      this.arm(schedule);
    }
    this.others?.start();
    if (this.others) this.sweeper = setInterval(() => this.sweep(), sweepEveryMs).unref();
  }

  /** Runs left RUNNING by a Controller gone since the start's sweep; a run too fresh to be sure of its Controller is left to the next. */
  private sweep(): void {
    if (this.sweeping || !this.active) return;
    this.sweeping = this.alive()
      .then((alive) => this.records.interrupted(alive, new Date(this.deps.clock.now().getTime() - freshRunMs).toISOString()))
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'the sweep of schedule runs left by stopped Controllers failed; the next tries again'))
      .finally(() => (this.sweeping = undefined));
  }

  /** Disarms every timer and waits for the runs under way, which the stop signal ends where they are. */
  async stop(): Promise<void> {
    this.active = false;
    clearInterval(this.sweeper);
    this.others?.stop();
    this.alarms.clear();
    await Promise.all([...this.underWay, this.sweeping]);
  }

  /** Arms the schedule for its next minute after `after` (now by default); a disabled one is only disarmed. */
  arm(schedule: ScheduleDoc, after = this.deps.clock.now()): void {
    const minute = schedule.enabled && this.active && !this.stopping.stopped ? nextRun(schedule.cron, after, schedule.timezone) : undefined;
    if (!minute) return this.disarm(schedule._id);
    this.alarms.arm(schedule._id, minute, () => {
      this.fired(schedule._id, minute).catch((err: unknown) => this.deps.logger.error({ err, scheduleId: schedule._id }, 'a schedule failed to run'));
    });
  }

  disarm(scheduleId: string): void {
    this.alarms.disarm(scheduleId);
  }

  /** The next minute the schedule is armed for, as the API shows it. */
  nextMinute(schedule: ScheduleDoc): Date | undefined {
    return schedule.enabled ? nextRun(schedule.cron, this.deps.clock.now(), schedule.timezone) : undefined;
  }

  /** Claims a run asked for now and carries it out in the background; its record once admitted or skipped. */
  async runNow(schedule: ScheduleDoc): Promise<ScheduleRunDoc> {
    const now = this.deps.clock.now();
    const run = await this.records.claim(schedule, `${schedule._id}@now@${this.deps.ids.next()}`, now, 'RUNNING');
    if (!run) throw new Error('a run asked for now was claimed twice');
    const admitted = await this.executor.admit(schedule, run);
    if (typeof admitted === 'string') return this.records.finish(run, schedule, 'SKIPPED', admitted);
    this.carryOut(schedule, run, admitted);
    return run;
  }

  private async fired(scheduleId: string, minute: Date): Promise<void> {
    const schedule = await this.deps.repos.schedules.findById(scheduleId);
    if (!schedule || !schedule.enabled || !this.active || this.stopping.stopped) return;
    const now = this.deps.clock.now();
    // A long wait woke on the way, or the timer came a little early: the minute is still ahead.
    if (now < minute) {
      this.arm(schedule, new Date(minute.getTime() - 1));
      return;
    }
    this.arm(schedule, minute);
    const run = await this.records.claim(schedule, minuteKey(schedule._id, minute), minute, 'RUNNING');
    if (run) this.carryOut(schedule, run);
  }

  private carryOut(schedule: ScheduleDoc, run: ScheduleRunDoc, admitted?: GoAhead): void {
    const waits = new RunWaits(this.timers, this.changes, this.deps.repos.servers, this.stopping.signal);
    const done = this.executor.execute(schedule, run, waits, admitted)
      .catch((err: unknown) => this.deps.logger.error({ err, scheduleId: schedule._id, runId: run._id }, 'a schedule run failed'))
      .finally(() => this.underWay.delete(done));
    this.underWay.add(done);
  }
}
