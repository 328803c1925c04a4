import type { ScheduleTimers } from '../../core/schedule-timers.js';
import type { AuditService } from '../audit/audit.js';
import type { BackupServices } from '../backups/index.js';
import type { ConsoleService } from '../console/console.js';
import type { ServiceDeps } from '../deps.js';
import type { Access } from '../identity/access.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { ServerService } from '../servers/servers.js';
import type { ClusterMembership } from '../leases/membership.js';
import type { WorkflowRunner } from '../workflows/workflow-runner.js';
import { RunExecutor } from './run-executor.js';
import { RunRecords } from './run-records.js';
import { ScheduleBackups } from './schedule-backups.js';
import { ScheduleService } from './schedules.js';
import { ScheduleScheduler } from './scheduler.js';
import { TaskActions } from './task-actions.js';

export interface ScheduleDeps {
  deps: ServiceDeps;
  access: Access;
  audit: AuditService;
  aggregate: ServerAggregate;
  servers: ServerService;
  console: ConsoleService;
  backups: BackupServices;
  serverChanges: ServerChangeHub;
  /** Its signal stops every run at shutdown, as it stops workflows. */
  workflows: Pick<WorkflowRunner, 'signal' | 'stopped' | 'refuseWhileStopping'>;
  timers: ScheduleTimers;
  /** Who carries runs out here, and which Controllers are alive: their runs under way are never swept. */
  cluster: Pick<ClusterMembership, 'controllerId' | 'controllers'>;
  /** With several Controllers: how often the one running the schedules looks for those changed through the others. */
  followEveryMs?: number;
}

/** Server schedules: their records, the timers that claim their minutes, and the runs that act as their editors. */
export function createScheduleServices(d: ScheduleDeps) {
  const records = new RunRecords(d.deps, d.cluster.controllerId);
  const actions = new TaskActions(d.deps, d.audit, d.servers, d.console, new ScheduleBackups(d.deps, d.access, d.audit, d.backups));
  const executor = new RunExecutor(d.deps, d.access, records, actions);
  const alive = async () => new Set((await d.cluster.controllers()).map((c) => c.id));
  const scheduler = new ScheduleScheduler(d.deps, d.timers, records, executor, d.serverChanges, d.workflows, alive, d.followEveryMs);
  const schedules = new ScheduleService(d.deps, d.access, d.aggregate, d.backups.destinations, records, scheduler, () => d.workflows.refuseWhileStopping(), d.serverChanges);
  return {
    schedules,
    /** Every run's end (the metric and notifications hear it). */
    runs: records,
    /**
     * The fleet-wide job: runs cut off settled, missed minutes recorded, every enabled schedule
     * armed; stopped, nothing is armed and the runs under way are waited for.
     */
    job: { start: () => scheduler.start(), stop: () => scheduler.stop() },
    /** After the workflow runner's stop: the runs under way have ended where they were. */
    stop: () => scheduler.stop(),
  };
}

export type ScheduleServices = ReturnType<typeof createScheduleServices>;
