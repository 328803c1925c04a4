import { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { isDomainError } from '../../core/errors.js';
import { warningLine, warningPlan } from '../../domain/schedule-tasks.js';
import { defaultWarnCommand, type ScheduleTask } from '../../schemas/schedules.js';
import type { ScheduleDoc, ServerDoc } from '../../store/records.js';
import type { AuditService } from '../audit/audit.js';
import type { ConsoleService } from '../console/console.js';
import type { ServiceDeps } from '../deps.js';
import type { ServerService } from '../servers/servers.js';
import type { ScheduleBackups } from './schedule-backups.js';
import { TaskFailure, type RunWaits } from './run-waits.js';

/** How long a start, stop or restart task waits for the server to get there. */
export const powerTaskDeadlineMs = 5 * 60_000;

export interface TaskContext {
  schedule: ScheduleDoc;
  /** The schedule's last editor, as whom every action is taken and audited. */
  editor: Caller;
  waits: RunWaits;
}

const running = (doc: ServerDoc) => doc.observed.runtimeState === 'RUNNING';
const stopped = (doc: ServerDoc) => doc.observed.runtimeState === 'STOPPED' || doc.observed.runtimeState === 'CRASHED';

/**
 * What each action of a task does: the same service calls an operator's request makes, as the
 * editor, each audited as its own action with `details.scheduleId`. An action ends when its effect
 * is seen (the server RUNNING, STOPPED, started anew; the backup finished); it throws a TaskFailure
 * or the service's refusal when it cannot.
 */
export class TaskActions {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly audit: AuditService,
    private readonly servers: ServerService,
    private readonly console: ConsoleService,
    private readonly backups: ScheduleBackups,
  ) {}

  /** The task's `detail` when it succeeded with something to say. */
  async run(task: ScheduleTask, ctx: TaskContext): Promise<string | undefined> {
    switch (task.action) {
      case 'command':
        await this.command(ctx, task.command!);
        return undefined;
      case 'start':
        await this.power(ctx, 'START', running, 'reach RUNNING');
        return undefined;
      case 'stop':
        await this.power(ctx, 'STOP', stopped, 'stop');
        return undefined;
      case 'restart':
        return this.restart(ctx, task);
      case 'backup':
        return this.backup(ctx, task.destinationId!, task.retain);
    }
  }

  /** Runs `work` under an audit event of `action` on the server, recorded as the editor whatever the outcome. */
  private async audited<T>(ctx: TaskContext, action: string, targetKind: string, work: (scope: AuditScope) => Promise<T>): Promise<T> {
    const scope = new AuditScope(action, targetKind).target(ctx.schedule.serverId).detail({ scheduleId: ctx.schedule._id });
    try {
      // At shutdown the run ends where it is, not when a Node answers.
      const result = await ctx.waits.until(work(scope));
      await this.audit.record(scope, ctx.editor, 'SUCCESS');
      return result;
    } catch (e) {
      await this.audit.record(scope, ctx.editor, isDomainError(e) && (e.code === 'forbidden' || e.denied) ? 'DENIED' : 'FAILED');
      throw e;
    }
  }

  private command(ctx: TaskContext, line: string): Promise<void> {
    return this.audited(ctx, 'server.command', 'server', (scope) => this.console.command(ctx.editor, ctx.schedule.serverId, line, scope));
  }

  private async power(ctx: TaskContext, action: 'START' | 'STOP' | 'RESTART', reached: (doc: ServerDoc) => boolean, what: string): Promise<ServerDoc> {
    const verb = action.toLowerCase();
    const serverId = ctx.schedule.serverId;
    // Heard from before the action, so a report that answers it at once is not missed.
    const wait = ctx.waits.server(serverId, reached, what, powerTaskDeadlineMs);
    try {
      await this.audited(ctx, `server.${verb}`, 'server', (scope) => this.servers.power(ctx.editor, serverId, action, scope));
    } catch (e) {
      wait.cancel();
      throw e;
    }
    return wait.arrived;
  }

  /** Warnings first (each that many seconds before the stop), then the restart, done once the game runs again with a new start time. */
  private async restart(ctx: TaskContext, task: ScheduleTask): Promise<string | undefined> {
    const { warnings, restartAtMs } = warningPlan(task.warnSeconds ?? []);
    const unsent: number[] = [];
    let waited = 0;
    for (const warning of warnings) {
      await ctx.waits.delay(warning.atMs - waited);
      waited = warning.atMs;
      // A warning nobody could read (the game not running) does not keep the restart from happening.
      await this.command(ctx, warningLine(task.warnCommand ?? defaultWarnCommand, warning.seconds)).catch(() => unsent.push(warning.seconds));
    }
    await ctx.waits.delay(restartAtMs - waited);
    const before = (await this.current(ctx)).observed.startedAt;
    await this.power(ctx, 'RESTART', (doc) => running(doc) && doc.observed.startedAt !== undefined && doc.observed.startedAt !== before, 'run again');
    return unsent.length > 0 ? `warnings not sent (the game did not take them): ${unsent.join(', ')} s` : undefined;
  }

  private async backup(ctx: TaskContext, destinationId: string, retain: number | undefined): Promise<string> {
    const backup = await this.audited(ctx, 'backup.create', 'backup', async (scope) => {
      const doc = await this.backups.take(ctx.editor, await this.current(ctx), destinationId, ctx.schedule._id);
      scope.target(doc._id).detail({ serverId: doc.serverId, destinationId, trigger: doc.trigger });
      return doc;
    });
    const finished = await this.backups.finished(backup, ctx.waits);
    if (finished.state !== 'SUCCEEDED') throw new TaskFailure(`the backup failed: ${finished.error ?? 'no reason given'}`);
    if (retain !== undefined) await this.backups.retain(ctx.schedule._id, retain);
    return `backup ${finished._id}`;
  }

  private async current(ctx: TaskContext): Promise<ServerDoc> {
    const doc = await this.deps.repos.servers.findById(ctx.schedule.serverId);
    if (!doc) throw new TaskFailure('the server was deleted');
    return doc;
  }
}
