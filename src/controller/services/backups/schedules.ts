import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest, notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import type { BackupDoc, BackupScheduleDoc } from '../../store/records.js';
import type { Access } from '../identity/access.js';
import type { AuditService } from '../audit/audit.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { BackupRemoval } from './backup-removal.js';
import type { BackupRunner } from './backup-runner.js';
import { scheduleView } from './backup-views.js';
import type { BackupService } from './backups.js';
import { nextRun, parseCron } from '../../core/cron.js';
import type { BackupDestinations } from './destinations.js';
import type { BackupScheduler } from './scheduler.js';

export interface CreateScheduleInput {
  cron: string;
  destinationId?: string;
  retain: number;
}

/**
 * Backup schedules: records (so they survive restarts) that the scheduler's timers run. Each run
 * is a SCHEDULED backup audited as the Controller's own (SYSTEM); after a successful one, only
 * the newest `retain` SCHEDULED backups of the schedule are kept.
 */
export class BackupSchedules {
  private readonly retention = new KeyedMutex();
  private scheduler?: BackupScheduler;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly audit: AuditService,
    private readonly servers: ServerAggregate,
    private readonly destinations: BackupDestinations,
    private readonly backups: BackupService,
    private readonly removal: BackupRemoval,
    private readonly runner: BackupRunner,
    serverChanges: ServerChangeHub,
  ) {
    this.runner.onFinished((backup) => {
      if (backup.trigger !== 'SCHEDULED' || backup.state !== 'SUCCEEDED' || !backup.scheduleId) return;
      this.applyRetention(backup.scheduleId).catch((err: unknown) => deps.logger.error({ err, scheduleId: backup.scheduleId }, 'backup retention failed'));
    });
    serverChanges.subscribe(({ doc, deleted }) => {
      if (deleted) this.forgetServer(doc._id).catch((err: unknown) => deps.logger.error({ err, serverId: doc._id }, 'removing a deleted server\'s backup schedules failed'));
    });
  }

  /** The timers, which fire into this service (the two are made together). */
  attach(scheduler: BackupScheduler): void {
    this.scheduler = scheduler;
  }

  private async loadSchedule(caller: Caller, scheduleId: string, permission: 'backups.read' | 'backups.create'): Promise<BackupScheduleDoc> {
    const schedule = await this.deps.repos.backupSchedules.findById(scheduleId);
    if (!schedule) throw notFound('backup schedule');
    const server = await this.deps.repos.servers.findById(schedule.serverId);
    if (!server) throw notFound('backup schedule');
    await this.access.require(caller, server.teamId, permission, 'backup schedule', 'backups.read');
    return schedule;
  }

  async create(caller: Caller, serverId: string, input: CreateScheduleInput, audit: AuditScope) {
    audit.detail({ serverId, cron: input.cron, retain: input.retain });
    const server = await this.servers.load(caller, serverId, 'backups.create');
    parseCron(input.cron);
    const destination = await this.destinations.resolve(input.destinationId);
    const at = nowIso(this.deps);
    const next = nextRun(input.cron, new Date(at));
    if (!next) throw invalidRequest('body.cron: the expression never fires.');
    const doc: BackupScheduleDoc = {
      _id: this.deps.ids.next(), serverId, teamId: server.teamId, cron: input.cron.trim().split(/\s+/).join(' '), destinationId: destination._id,
      retain: input.retain, nextRunAt: next.toISOString(), createdAt: at,
    };
    await this.deps.repos.backupSchedules.insert(doc);
    audit.target(doc._id).detail({ destinationId: destination._id, nextRunAt: doc.nextRunAt });
    this.scheduler?.arm(doc);
    return scheduleView(doc);
  }

  async listForServer(caller: Caller, serverId: string, page: { limit: number; cursor?: string }) {
    await this.servers.load(caller, serverId, 'backups.read');
    return this.page(page, [{ serverId }]);
  }

  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    const teams = await this.access.teamsWith(caller, 'backups.read');
    return this.page(page, teams ? [{ teamId: { $in: teams } }] : []);
  }

  private async page(page: { limit: number; cursor?: string }, filter: Record<string, unknown>[]) {
    const result = await paginate<BackupScheduleDoc, string>(page, (after, limit) => {
      const all = after === undefined ? filter : [...filter, { _id: { $gt: after } }];
      return this.deps.repos.backupSchedules.find(all.length ? { $and: all } : {}, { sort: { _id: 1 }, limit });
    }, (s) => s._id);
    return { ...result, items: result.items.map(scheduleView) };
  }

  async get(caller: Caller, scheduleId: string) {
    return scheduleView(await this.loadSchedule(caller, scheduleId, 'backups.read'));
  }

  /** The schedule goes; the backups it took stay until deleted by hand. */
  async delete(caller: Caller, scheduleId: string, audit: AuditScope): Promise<void> {
    audit.target(scheduleId);
    const schedule = await this.loadSchedule(caller, scheduleId, 'backups.create');
    audit.detail({ serverId: schedule.serverId, cron: schedule.cron });
    await this.deps.repos.backupSchedules.delete({ _id: scheduleId });
    this.scheduler?.disarm(scheduleId);
  }

  /** A run of the schedule: a SCHEDULED backup of its server, queued like any other. */
  async fire(schedule: BackupScheduleDoc): Promise<void> {
    const server = await this.deps.repos.servers.findById(schedule.serverId);
    if (!server) {
      await this.forgetServer(schedule.serverId);
      return;
    }
    const destination = await this.destinations.get(schedule.destinationId);
    if (!destination) {
      this.deps.logger.warn({ event: 'schedule_destination_missing', scheduleId: schedule._id }, 'a backup schedule\'s destination is gone');
      return;
    }
    const backup = await this.runner.create(server, destination, 'SCHEDULED', schedule._id);
    await this.audit.recordSystem({
      actorKind: 'SYSTEM', action: 'backup.create', targetKind: 'backup', targetId: backup._id, outcome: 'SUCCESS',
      details: { serverId: server._id, scheduleId: schedule._id, destinationId: destination._id, trigger: 'SCHEDULED' },
    });
    this.backups.queue(backup);
  }

  /** Keeps the newest `retain` successful SCHEDULED backups of the schedule; failed runs older than the newest success go too. */
  async applyRetention(scheduleId: string): Promise<void> {
    await this.retention.run(scheduleId, async () => {
      const schedule = await this.deps.repos.backupSchedules.findById(scheduleId);
      if (!schedule) return;
      const finished = await this.deps.repos.backups.find({ scheduleId, trigger: 'SCHEDULED', state: { $in: ['SUCCEEDED', 'FAILED'] } }, { sort: { _id: -1 } });
      const succeeded = finished.filter((b) => b.state === 'SUCCEEDED');
      const newest = succeeded.at(0)?._id ?? '';
      const expired: BackupDoc[] = [
        ...succeeded.slice(schedule.retain),
        ...finished.filter((b) => b.state === 'FAILED' && b._id < newest),
      ];
      if (expired.length === 0) return;
      await this.removal.remove(expired);
      for (const b of expired) {
        await this.audit.recordSystem({
          actorKind: 'SYSTEM', action: 'backup.delete', targetKind: 'backup', targetId: b._id, outcome: 'SUCCESS',
          details: { serverId: b.serverId, scheduleId, reason: 'retention', retain: schedule.retain },
        });
      }
    });
  }

  /** The server was deleted: its schedules go (its backups stay, for global administrators). */
  private async forgetServer(serverId: string): Promise<void> {
    for (const s of await this.deps.repos.backupSchedules.find({ serverId })) this.scheduler?.disarm(s._id);
    await this.deps.repos.backupSchedules.delete({ serverId });
  }
}
