import type { NodeFleet } from '../../actors/fleet.js';
import type { AgentInbound } from '../../link/agent-events.js';
import type { BackupDoc, ScheduleDoc, ScheduleRunDoc } from '../../store/records.js';
import type { BackupRunner } from '../backups/backup-runner.js';
import type { ServiceDeps } from '../deps.js';
import type { RunRecords } from '../schedules/run-records.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { WorkflowOutcomes } from '../workflows/workflow-outcomes.js';
import { CrashReports, ServerTransitions, serverOf } from './server-events.js';
import type { NotificationEvent, WebhookOutbox } from './webhook-outbox.js';

export interface EventFeeds {
  reports: Pick<AgentInbound, 'onServerReport'>;
  serverChanges: ServerChangeHub;
  workflows: WorkflowOutcomes;
  backups: BackupRunner;
  schedules: Pick<RunRecords, 'onEnded'>;
  fleet: NodeFleet;
}

const workflowEvents = { UPDATE: 'server.update_failed', MIGRATE: 'server.migration_failed' } as const;

/**
 * Where notifications come from: the Controller's own event flow (Agent reports, record changes,
 * workflow and backup ends, Node states), heard as it happens; nothing is polled. Each listener
 * returns at once: storing and sending happen after, off the path that told the event.
 */
export class NotificationSources {
  private readonly transitions = new ServerTransitions();
  private readonly unsubscribes: (() => void)[] = [];
  /** Nodes told unreachable by this Controller: only their return is news. */
  private readonly toldUnreachable = new Set<string>();

  constructor(private readonly deps: ServiceDeps, private readonly feeds: EventFeeds, private readonly outbox: WebhookOutbox) {}

  async start(): Promise<void> {
    const crashes = new CrashReports(this.deps.clock.now().getTime());
    const stored = await this.deps.repos.servers.find({});
    this.transitions.seed(stored);
    crashes.seed(stored);
    const f = this.feeds;
    this.unsubscribes.push(
      f.reports.onServerReport((nodeId, report) => {
        const details = crashes.reported(report.serverId, report.lastCrash, report.removed);
        if (details) this.later(() => this.crashed(nodeId, report.serverId, details));
      }),
      f.serverChanges.subscribe((change) => {
        for (const event of this.transitions.changed(change)) this.later(async () => void (await this.outbox.publish(event)));
      }),
      f.workflows.subscribe((kind, result, serverId) => {
        if (result === 'succeeded' || kind === 'RESTORE') return;
        this.later(() => this.workflowFailed(workflowEvents[kind], result, serverId));
      }),
      f.backups.onFinished((backup) => this.later(() => this.backupFinished(backup))),
      f.schedules.onEnded((run, schedule) => {
        if (run.result === 'FAILED') this.later(() => this.scheduleRunFailed(run, schedule));
      }),
      f.fleet.subscribe((state, previous) => {
        const { nodeId, connectionState } = state;
        if (connectionState === previous?.connectionState) return;
        if (connectionState === 'UNREACHABLE') {
          this.toldUnreachable.add(nodeId);
          this.later(() => this.nodeEvent('node.unreachable', nodeId));
        } else if (connectionState === 'HEALTHY' && this.toldUnreachable.delete(nodeId)) {
          this.later(() => this.nodeEvent('node.healthy', nodeId));
        }
      }),
    );
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  private later(work: () => Promise<void>): void {
    void work().catch((err: unknown) => this.deps.logger.error({ err }, 'a notification could not be stored'));
  }

  private async crashed(nodeId: string, serverId: string, details: Record<string, unknown>): Promise<void> {
    const doc = await this.deps.repos.servers.findById(serverId);
    // Another Node's report (a migration's source) is about a copy, not the server.
    if (!doc || doc.nodeId !== nodeId) return;
    const oom = details.reason === 'OOM_KILLED' ? { memoryLimitBytes: doc.desired.resources.memoryBytes } : {};
    await this.outbox.publish({ event: 'server.crashed', server: serverOf(doc), details: { ...details, ...oom } });
  }

  private async workflowFailed(event: NotificationEvent['event'], result: string, serverId: string): Promise<void> {
    const doc = await this.deps.repos.servers.findById(serverId);
    if (!doc) return;
    const message = doc.workflowFailure?.message ?? doc.failure;
    await this.outbox.publish({ event, server: serverOf(doc), details: { result, ...(message ? { message } : {}) } });
  }

  private async backupFinished(backup: BackupDoc): Promise<void> {
    const doc = await this.deps.repos.servers.findById(backup.serverId);
    const server = doc ? serverOf(doc) : { id: backup.serverId, name: backup.serverId, teamId: backup.teamId };
    const details = { backupId: backup._id, trigger: backup.trigger, ...(backup.error ? { message: backup.error } : { sizeBytes: backup.sizeBytes }) };
    await this.outbox.publish({ event: backup.state === 'SUCCEEDED' ? 'backup.succeeded' : 'backup.failed', server, details });
  }

  /** Why the run failed: its reason (`interrupted`), or the task that failed and what it said. */
  private async scheduleRunFailed(run: ScheduleRunDoc, schedule: ScheduleDoc): Promise<void> {
    const doc = await this.deps.repos.servers.findById(schedule.serverId);
    if (!doc) return;
    const failed = run.tasks.find((t) => t.result === 'FAILED');
    const why = run.reason || !failed
      ? { reason: run.reason ?? 'failed' }
      : { action: failed.action, ...(failed.detail ? { detail: failed.detail } : {}), message: `the ${failed.action} task failed${failed.detail ? `: ${failed.detail}` : ''}` };
    await this.outbox.publish({ event: 'schedule.run_failed', server: serverOf(doc), details: { scheduleId: schedule._id, scheduleName: schedule.name, runId: run._id, ...why } });
  }

  private async nodeEvent(event: 'node.unreachable' | 'node.healthy', nodeId: string): Promise<void> {
    const node = await this.deps.repos.nodes.findById(nodeId);
    await this.outbox.publish({ event, node: { id: nodeId, name: node?.name ?? nodeId }, details: {} });
  }
}
