import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { tasksPermissions } from '../../domain/schedule-tasks.js';
import type { CreateServerSchedule, ScheduleTask, UpdateServerSchedule } from '../../schemas/schedules.js';
import type { ScheduleDoc, ScheduleRunDoc, ServerDoc } from '../../store/records.js';
import type { BackupDestinations } from '../backups/destinations.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { Access } from '../identity/access.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { RunRecords } from './run-records.js';
import { checkTasks, checkTiming } from './schedule-input.js';
import { runView, scheduleView } from './schedule-views.js';
import type { ScheduleScheduler } from './scheduler.js';

type Page = { limit: number; cursor?: string };

/** What the audit log keeps of a schedule: what it does, when and to which server. */
const described = (doc: Pick<ScheduleDoc, 'serverId' | 'name' | 'cron' | 'timezone' | 'enabled' | 'onlyWhenRunning' | 'tasks'>) => ({
  serverId: doc.serverId, name: doc.name, cron: doc.cron, timezone: doc.timezone, enabled: doc.enabled, onlyWhenRunning: doc.onlyWhenRunning,
  tasks: doc.tasks.map((t) => t.action),
});

/**
 * Schedules of a server: read with `servers.read`; created, changed, deleted and run now with
 * `servers.update` and the permission of each task in the server's team, the caller becoming the
 * schedule's editor (`updatedBy`), as whom its runs act. Deleting a server deletes its schedules
 * and their runs.
 */
export class ScheduleService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly servers: ServerAggregate,
    private readonly destinations: Pick<BackupDestinations, 'get'>,
    private readonly records: RunRecords,
    private readonly scheduler: ScheduleScheduler,
    private readonly refuseWhileStopping: () => void,
    serverChanges: ServerChangeHub,
  ) {
    serverChanges.subscribe(({ doc, deleted }) => {
      if (deleted) this.forgetServer(doc._id).catch((err: unknown) => deps.logger.error({ err, serverId: doc._id }, 'removing a deleted server\'s schedules failed'));
    });
  }

  /** The server, when the caller may edit its schedules with these tasks: servers.update and each task's permission. */
  private async editable(caller: Caller, serverId: string, tasks: readonly ScheduleTask[]): Promise<ServerDoc> {
    const server = await this.servers.load(caller, serverId, 'servers.update');
    for (const permission of tasksPermissions(tasks)) await this.access.require(caller, server.teamId, permission, 'server', 'servers.read');
    return server;
  }

  /** The schedule, when the caller may read its server; one of a server it may not see is not found. */
  private async readable(caller: Caller, scheduleId: string): Promise<ScheduleDoc> {
    const doc = await this.deps.repos.schedules.findById(scheduleId);
    if (!doc) throw notFound('schedule');
    const server = await this.deps.repos.servers.findById(doc.serverId);
    if (!server) throw notFound('schedule');
    await this.access.require(caller, server.teamId, 'servers.read', 'schedule', 'servers.read');
    return doc;
  }

  private async view(doc: ScheduleDoc) {
    return scheduleView(doc, this.scheduler.nextMinute(doc), await this.records.latest(doc._id));
  }

  async create(caller: Caller, serverId: string, input: CreateServerSchedule, audit: AuditScope) {
    audit.detail({ serverId, name: input.name, cron: input.cron, tasks: input.tasks.map((t) => t.action) });
    const server = await this.editable(caller, serverId, input.tasks);
    const at = nowIso(this.deps);
    const timing = checkTiming(input.cron, input.timezone ?? 'UTC', new Date(at));
    await checkTasks(input.tasks, this.destinations);
    const doc: ScheduleDoc = {
      _id: this.deps.ids.next(), serverId, teamId: server.teamId, name: input.name, ...timing, enabled: input.enabled ?? true,
      onlyWhenRunning: input.onlyWhenRunning ?? false, tasks: input.tasks, dueSince: at, createdAt: at, updatedAt: at, updatedBy: caller.user._id,
    };
    await this.deps.repos.schedules.insert(doc);
    audit.target(doc._id).detail(described(doc));
    this.scheduler.arm(doc);
    return this.view(doc);
  }

  async listForServer(caller: Caller, serverId: string, page: Page) {
    await this.servers.load(caller, serverId, 'servers.read');
    const result = await paginate<ScheduleDoc, string>(
      page,
      (after, limit) => this.deps.repos.schedules.find(after === undefined ? { serverId } : { serverId, _id: { $gt: after } }, { sort: { _id: 1 }, limit }),
      (s) => s._id,
    );
    const items = [];
    for (const doc of result.items) items.push(await this.view(doc));
    return { ...result, items };
  }

  async get(caller: Caller, scheduleId: string) {
    return this.view(await this.readable(caller, scheduleId));
  }

  async update(caller: Caller, scheduleId: string, input: UpdateServerSchedule, audit: AuditScope) {
    audit.target(scheduleId).detail({ ...input, ...(input.tasks ? { tasks: input.tasks.map((t) => t.action) } : {}) });
    const doc = await this.readable(caller, scheduleId);
    const tasks = input.tasks ?? doc.tasks;
    await this.editable(caller, doc.serverId, tasks);
    const at = nowIso(this.deps);
    const timing = checkTiming(input.cron ?? doc.cron, input.timezone ?? doc.timezone, new Date(at));
    if (input.tasks) await checkTasks(input.tasks, this.destinations);
    const enabled = input.enabled ?? doc.enabled;
    // A minute before it fires as it now says was never due: nothing before it is MISSED.
    const dueAnew = (enabled && !doc.enabled) || timing.cron !== doc.cron || timing.timezone !== doc.timezone;
    const next: ScheduleDoc = {
      ...doc, ...timing, enabled, tasks,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.onlyWhenRunning !== undefined ? { onlyWhenRunning: input.onlyWhenRunning } : {}),
      ...(dueAnew ? { dueSince: at } : {}),
      updatedAt: at, updatedBy: caller.user._id,
    };
    await this.deps.repos.schedules.replace({ _id: scheduleId }, next);
    this.scheduler.arm(next);
    return this.view(next);
  }

  async delete(caller: Caller, scheduleId: string, audit: AuditScope): Promise<void> {
    audit.target(scheduleId);
    const doc = await this.readable(caller, scheduleId);
    audit.detail(described(doc));
    await this.editable(caller, doc.serverId, doc.tasks);
    this.scheduler.disarm(scheduleId);
    await this.deps.repos.schedules.delete({ _id: scheduleId });
    await this.deps.repos.scheduleRuns.delete({ scheduleId });
  }

  /** Run now, once: the run acts as the schedule's editor, as a run at its minute would. */
  async run(caller: Caller, scheduleId: string, audit: AuditScope) {
    audit.target(scheduleId);
    const doc = await this.readable(caller, scheduleId);
    audit.detail({ serverId: doc.serverId, name: doc.name, trigger: 'now' });
    await this.editable(caller, doc.serverId, doc.tasks);
    this.refuseWhileStopping();
    const run = await this.scheduler.runNow(doc);
    audit.detail({ runId: run._id });
    return runView(run);
  }

  /** The schedule's runs, newest first. */
  async runs(caller: Caller, scheduleId: string, page: Page) {
    // The cursor is read before the schedule is looked up: a bad one is refused whatever the id.
    const result = await paginate<ScheduleRunDoc, string>(
      page,
      async (before, limit) => {
        await this.readable(caller, scheduleId);
        return this.deps.repos.scheduleRuns.find(before === undefined ? { scheduleId } : { scheduleId, _id: { $lt: before } }, { sort: { _id: -1 }, limit });
      },
      (r) => r._id,
    );
    return { ...result, items: result.items.map(runView) };
  }

  private async forgetServer(serverId: string): Promise<void> {
    for (const s of await this.deps.repos.schedules.find({ serverId })) this.scheduler.disarm(s._id);
    await this.deps.repos.schedules.delete({ serverId });
    await this.deps.repos.scheduleRuns.delete({ serverId });
  }
}
