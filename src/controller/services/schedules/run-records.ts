import { Listeners } from '../../../shared/listeners.js';
import type { ScheduleRunReason, ScheduleRunResult, ScheduleTask } from '../../schemas/schedules.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { ScheduleDoc, ScheduleRunDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';

/** Finished runs kept per schedule; older ones go when a run ends. */
export const keptRuns = 100;

/** A run that ended (not RUNNING), and its schedule as it was when the run ended. */
export type RunEnded = (run: ScheduleRunDoc, schedule: ScheduleDoc) => void;

const notRun = (tasks: readonly ScheduleTask[]): ScheduleRunDoc['tasks'] => tasks.map((t) => ({ action: t.action, result: 'NOT_RUN' }));

export const minuteKey = (scheduleId: string, minute: Date) => `${scheduleId}@${minute.toISOString()}`;

/**
 * The run records of schedules. A run is claimed by inserting it: the unique `claimKey` refuses a
 * second claim of one minute, whichever process makes it, so nothing runs twice. Every end is told
 * to the listeners (the metric, notifications).
 */
export class RunRecords {
  private readonly ended = new Listeners<Parameters<RunEnded>>();

  constructor(private readonly deps: Pick<ServiceDeps, 'repos' | 'clock' | 'ids'>, private readonly runBy?: string) {}

  onEnded(listener: RunEnded): () => void {
    return this.ended.add(listener);
  }

  /** The new RUNNING (or MISSED) record, or undefined when the key was claimed already. */
  async claim(schedule: ScheduleDoc, claimKey: string, scheduledFor: Date, result: 'RUNNING' | 'MISSED'): Promise<ScheduleRunDoc | undefined> {
    const at = nowIso(this.deps);
    // A MISSED run is ended as it is claimed: none of its tasks ran.
    const run: ScheduleRunDoc = {
      _id: this.deps.ids.next(), scheduleId: schedule._id, serverId: schedule.serverId, claimKey, scheduledFor: scheduledFor.toISOString(), result,
      ...(result === 'RUNNING' ? { startedAt: at, tasks: [], ...(this.runBy !== undefined ? { runBy: this.runBy } : {}) } : { finishedAt: at, tasks: notRun(schedule.tasks) }),
    };
    try {
      await this.deps.repos.scheduleRuns.insert(run);
    } catch (e) {
      if (isDuplicateKey(e)) return undefined;
      throw e;
    }
    if (result === 'MISSED') await this.told(run, schedule);
    return run;
  }

  /** The tasks ended so far, written as each ends so a run cut off says how far it came. */
  async progress(run: ScheduleRunDoc): Promise<void> {
    await this.deps.repos.scheduleRuns.update({ _id: run._id }, { tasks: run.tasks });
  }

  /** Ends the run: every task not reached is NOT_RUN. */
  async finish(run: ScheduleRunDoc, schedule: ScheduleDoc, result: Exclude<ScheduleRunResult, 'RUNNING'>, reason?: ScheduleRunReason): Promise<ScheduleRunDoc> {
    const tasks = [...run.tasks, ...notRun(schedule.tasks.slice(run.tasks.length))];
    const ended: ScheduleRunDoc = { ...run, result, tasks, finishedAt: nowIso(this.deps), ...(reason ? { reason } : {}) };
    await this.deps.repos.scheduleRuns.replace({ _id: run._id }, ended);
    await this.told(ended, schedule);
    return ended;
  }

  /**
   * Runs left RUNNING by a Controller that stopped or died: FAILED `interrupted`, never run again.
   * Those of the Controllers still `alive` (this one too) are under way and left alone, and so
   * are those started at or after `startedBefore` when it is given.
   */
  async interrupted(alive: ReadonlySet<string> = new Set(), startedBefore?: string): Promise<void> {
    for (const run of await this.deps.repos.scheduleRuns.find({ result: 'RUNNING' })) {
      if (run.runBy !== undefined && alive.has(run.runBy)) continue;
      if (startedBefore !== undefined && (run.startedAt ?? run.scheduledFor) >= startedBefore) continue;
      const schedule = await this.deps.repos.schedules.findById(run.scheduleId);
      if (!schedule) await this.deps.repos.scheduleRuns.delete({ _id: run._id });
      else await this.finish(run, schedule, 'FAILED', 'interrupted');
    }
  }

  /** The schedule's latest run, for its view. */
  latest(scheduleId: string): Promise<ScheduleRunDoc | null> {
    return this.deps.repos.scheduleRuns.find({ scheduleId }, { sort: { _id: -1 }, limit: 1 }).then((runs) => runs.at(0) ?? null);
  }

  /** Another run of the schedule under way, claimed before this one. */
  async runningBefore(run: ScheduleRunDoc): Promise<boolean> {
    return (await this.deps.repos.scheduleRuns.count({ scheduleId: run.scheduleId, result: 'RUNNING', _id: { $lt: run._id } })) > 0;
  }

  private async told(run: ScheduleRunDoc, schedule: ScheduleDoc): Promise<void> {
    await this.prune(schedule._id);
    this.ended.emit(run, schedule);
  }

  private async prune(scheduleId: string): Promise<void> {
    const old = await this.deps.repos.scheduleRuns.find({ scheduleId, result: { $ne: 'RUNNING' } }, { sort: { _id: -1 } });
    const expired = old.slice(keptRuns).map((r) => r._id);
    if (expired.length > 0) await this.deps.repos.scheduleRuns.delete({ _id: { $in: expired } });
  }
}
