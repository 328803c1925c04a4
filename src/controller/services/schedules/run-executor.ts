import type { Caller } from '../../core/caller.js';
import { tasksPermissions } from '../../domain/schedule-tasks.js';
import type { ScheduleRunReason } from '../../schemas/schedules.js';
import type { Phase } from '../../domain/server-spec.js';
import type { ScheduleDoc, ScheduleRunDoc } from '../../store/records.js';
import { failureText } from '../backups/backup-failure.js';
import type { ServiceDeps } from '../deps.js';
import type { Access } from '../identity/access.js';
import { callerUser } from '../identity/caller-user.js';
import { Stopped } from '../workflows/step-failure.js';
import type { RunRecords } from './run-records.js';
import type { RunWaits } from './run-waits.js';
import type { TaskActions } from './task-actions.js';

/** Phases in which a workflow (or the server's making or removal) holds the server: a run is SKIPPED `phase_busy`. */
const busyPhases: readonly Phase[] = ['PROVISIONING', 'MIGRATING', 'RESTORING', 'UPDATING', 'DELETING'];

/** A run that goes ahead: its editor, as whom every task acts. */
export interface GoAhead {
  editor: Caller;
}

/**
 * Carries out one claimed run: first whether it may run at all (SKIPPED with the reason when not),
 * then its tasks in order, each no earlier than its offset from the run's start nor before the
 * task before it ended. A task that fails ends the run FAILED unless it continues on failure; the
 * run is SUCCEEDED only when every task it ran succeeded. When the Controller stops, the run ends
 * where it is: its record stays RUNNING and the next start marks it interrupted.
 */
export class RunExecutor {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly records: RunRecords,
    private readonly actions: TaskActions,
  ) {}

  /** Why the run must not go ahead (it is then ended SKIPPED), or its editor. */
  async admit(schedule: ScheduleDoc, run: ScheduleRunDoc): Promise<ScheduleRunReason | GoAhead> {
    const server = await this.deps.repos.servers.findById(schedule.serverId);
    if (!server) return 'server_gone';
    const user = await this.deps.repos.users.findById(schedule.updatedBy);
    if (!user) return 'forbidden';
    const editor: Caller = { kind: 'USER', user: callerUser(user) };
    for (const permission of tasksPermissions(schedule.tasks)) {
      if (!(await this.access.may(editor, server.teamId, permission))) return 'forbidden';
    }
    if (await this.records.runningBefore(run)) return 'already_running';
    if (server.workflow !== undefined || busyPhases.includes(server.phase)) return 'phase_busy';
    if (schedule.onlyWhenRunning && server.observed.runtimeState !== 'RUNNING') return 'not_running';
    return { editor };
  }

  /** Skips the run or carries it out (admitted already, for a run asked for now); resolves with the ended record, or undefined when the Controller stopped first. */
  async execute(schedule: ScheduleDoc, run: ScheduleRunDoc, waits: RunWaits, admittedBefore?: GoAhead): Promise<ScheduleRunDoc | undefined> {
    try {
      const admitted = admittedBefore ?? await this.admit(schedule, run);
      if (typeof admitted === 'string') return await this.records.finish(run, schedule, 'SKIPPED', admitted);
      return await this.tasks(schedule, run, admitted.editor, waits);
    } catch (e) {
      if (e instanceof Stopped) return undefined;
      throw e;
    }
  }

  private async tasks(schedule: ScheduleDoc, run: ScheduleRunDoc, editor: Caller, waits: RunWaits): Promise<ScheduleRunDoc> {
    const startedMs = Date.parse(run.startedAt ?? run.scheduledFor);
    let failed = false;
    for (const task of schedule.tasks) {
      const startAt = startedMs + (task.offsetSeconds ?? 0) * 1000;
      await waits.delay(startAt - this.deps.clock.now().getTime());
      let ended: ScheduleRunDoc['tasks'][number];
      try {
        const detail = await this.actions.run(task, { schedule, editor, waits });
        ended = { action: task.action, result: 'SUCCEEDED', ...(detail ? { detail } : {}) };
      } catch (e) {
        if (e instanceof Stopped) throw e;
        ended = { action: task.action, result: 'FAILED', detail: failureText(e) };
      }
      run = { ...run, tasks: [...run.tasks, ended] };
      await this.records.progress(run);
      if (ended.result === 'FAILED') {
        failed = true;
        if (!task.continueOnFailure) break;
      }
    }
    return this.records.finish(run, schedule, failed ? 'FAILED' : 'SUCCEEDED');
  }
}
