import type { ServerSoftware } from '../../../domain/server-spec.js';
import type { BackupDoc, ServerDoc } from '../../../store/records.js';
import type { TemplateCatalog } from '../../../adapters/software/template-catalog.js';
import type { NodeCalls } from '../../../link/node-calls.js';
import { failureText } from '../../backups/backup-failure.js';
import type { BackupRemoval } from '../../backups/backup-removal.js';
import type { BackupRunner } from '../../backups/backup-runner.js';
import { stageBackup } from '../../backups/backup-stage.js';
import type { BackupDestinations } from '../../backups/destinations.js';
import type { ServiceDeps } from '../../deps.js';
import { fileChangesEnded, type FileChangesUnderWay } from '../../files/file-changes.js';
import type { ServerChangeHub } from '../../servers/change-hub.js';
import { awaitServer, isStopped, startedAt } from '../../servers/server-waits.js';
import type { ServerAggregate } from '../../servers/aggregate.js';
import type { StageSink } from '../../transfers/stage-sink.js';
import { StepFailure } from '../step-failure.js';
import type { WorkflowResult } from '../workflow-outcomes.js';
import { WorkflowSteps } from '../workflow-steps.js';
import type { SoftwarePrefetch } from './software-prefetch.js';

/** The steps of an UPDATE workflow, as the server's `workflow.step` shows them. */
export const updateSteps = {
  fetching: 'fetching the new software',
  stopping: 'stopping the server',
  backup: 'taking a PRE_UPDATE backup',
  installing: 'installing the new software',
  starting: 'starting on the new software',
  rollingBack: 'putting the old software and files back',
} as const;

/** Before these steps nothing of the server was changed: a failure only lifts the hold. */
const untouchedSteps = new Set<string>([updateSteps.fetching, updateSteps.stopping, updateSteps.backup]);

/** How long an update waits for its server to stop and to start; tests shorten them. */
export interface UpdateTimings {
  stopMs: number;
  startMs: number;
}

export const defaultUpdateTimings: UpdateTimings = { stopMs: 3 * 60_000, startMs: 5 * 60_000 };

/** What every update run works with. */
export interface UpdateContext {
  deps: ServiceDeps;
  servers: ServerAggregate;
  templates: TemplateCatalog;
  runner: Pick<BackupRunner, 'create' | 'execute'>;
  destinations: BackupDestinations;
  removal: BackupRemoval;
  calls: NodeCalls;
  prefetch: Pick<SoftwarePrefetch, 'prefetch'>;
  changes: ServerChangeHub;
  nodeReady: (nodeId: string) => Promise<void>;
  /** File changes through the API under way: the PRE_UPDATE backup waits for them, so it holds them. */
  fileChanges: Pick<FileChangesUnderWay, 'settled'>;
  timings: UpdateTimings;
}

const describe = (software: ServerSoftware) => `${software.version}${software.build ? ` build ${software.build}` : ''}`;

/**
 * One server's update, as docs/updates.md describes it, each step persisted before it runs:
 * the new software fetched onto the Node while the server still runs, then held stopped, a PRE_UPDATE backup of the stopped server, a stage filled from that backup and
 * committed with the new software (`.cairn` installed again), then the hold lifted on the new
 * software and its start awaited. Any failure after the install puts the backup's files back with
 * the old software; the server ends READY either way (UPDATE_FAILED naming the step on a rollback).
 * The runner holds the server's turn, so its PRE_UPDATE backup is the only one under way.
 */
export class UpdateRun extends WorkflowSteps {
  constructor(private readonly ctx: UpdateContext, doc: ServerDoc, stopping: AbortSignal) {
    super(ctx, doc, stopping);
  }

  private get workflow() {
    const { workflow } = this.doc;
    if (workflow?.kind !== 'UPDATE' || !workflow.fromSoftware || !workflow.toSoftware) throw new Error(`server ${this.doc._id} is not updating`);
    return { ...workflow, fromSoftware: workflow.fromSoftware, toSoftware: workflow.toSoftware };
  }

  /** An update just begun (at `fetching`, not held yet): the whole way, or back. */
  async forward(): Promise<WorkflowResult> {
    try {
      await this.ctx.prefetch.prefetch(this.doc._id, this.doc.nodeId!, this.workflow.toSoftware);
      await this.step(updateSteps.stopping, { hold: true });
      await this.wait(isStopped, this.ctx.timings.stopMs, 'stop');
      await fileChangesEnded(this.ctx.fileChanges, this.doc._id);
      const backup = await this.takeBackup();
      await this.install(backup);
      await this.start();
    } catch (e) {
      this.endIfStopping();
      return this.rollback(failureText(e));
    }
    return this.succeed();
  }

  /**
   * An update found in the store at start: one that was starting on the new software is awaited
   * (it may well be running); any other is rolled back, since what the lost process did last is unknown.
   */
  async resume(): Promise<WorkflowResult> {
    if (this.workflow.step === updateSteps.starting) {
      try {
        await this.wait(startedAt(this.doc.generation, this.crashOf), this.ctx.timings.startMs, 'start');
      } catch (e) {
        this.endIfStopping();
        return this.rollback(failureText(e));
      }
      return this.succeed();
    }
    return this.rollback('the Controller restarted during the update');
  }

  private async takeBackup(): Promise<BackupDoc> {
    const { backupDestinationId } = this.workflow;
    const destination = backupDestinationId ? await this.ctx.destinations.get(backupDestinationId) : await this.ctx.destinations.builtin();
    if (!destination) throw new StepFailure('the backup destination is gone');
    const pending = await this.ctx.runner.create(this.doc, destination, 'PRE_UPDATE');
    await this.step(updateSteps.backup, { preUpdateBackupId: pending._id });
    const done = await this.ctx.runner.execute(pending._id);
    this.endIfStopping();
    if (done?.state !== 'SUCCEEDED') throw new StepFailure(`the PRE_UPDATE backup failed (${done?.error ?? 'it is gone'})`);
    return done;
  }

  private async install(backup: BackupDoc): Promise<void> {
    await this.step(updateSteps.installing);
    await this.commitBackup(backup, this.workflow.toSoftware, (stage) => this.step(updateSteps.installing, { stageId: stage.id }));
  }

  /** The hold lifts with the new software desired (a new generation): the Node starts it if it is meant to run. */
  private async start(): Promise<void> {
    await this.step(updateSteps.starting, { hold: false }, this.workflow.toSoftware);
    await this.wait(startedAt(this.doc.generation, this.crashOf), this.ctx.timings.startMs, 'start');
  }

  private async succeed(): Promise<WorkflowResult> {
    const { preUpdateBackupId, rollbackCopy } = this.workflow;
    // Gone before the server is READY again: READY means the update left nothing behind.
    if (rollbackCopy && preUpdateBackupId) await this.dropRollbackCopy(preUpdateBackupId);
    await this.done();
    return 'succeeded';
  }

  /**
   * Back to READY on the old software with UPDATE_FAILED. Before the install nothing changed; after
   * it, the server is held stopped again with the old software desired and the PRE_UPDATE backup's
   * files committed with it. A rollback that cannot finish says so and keeps the backup to restore by hand.
   */
  private async rollback(cause: string): Promise<WorkflowResult> {
    const { step, fromSoftware, toSoftware, preUpdateBackupId, rollbackCopy } = this.workflow;
    const failed = `Updating to ${toSoftware.template} ${describe(toSoftware)} failed while ${step}: ${cause}.`;
    if (untouchedSteps.has(step)) {
      await this.abort(`${failed} The server's files and software are as they were.`);
      if (rollbackCopy && preUpdateBackupId) await this.dropRollbackCopy(preUpdateBackupId);
      return 'rolled_back';
    }
    try {
      await this.step(updateSteps.rollingBack, { hold: true }, fromSoftware);
      await this.wait(isStopped, this.ctx.timings.stopMs, 'stop');
      const backup = preUpdateBackupId ? await this.ctx.deps.repos.backups.findById(preUpdateBackupId) : null;
      if (backup?.state !== 'SUCCEEDED') throw new StepFailure('the PRE_UPDATE backup is gone');
      await this.commitBackup(backup, fromSoftware, (stage) => this.step(updateSteps.rollingBack, { stageId: stage.id }));
    } catch (e) {
      this.endIfStopping();
      await this.abort(`${failed} Putting the old files back failed too (${failureText(e)}): restore PRE_UPDATE backup ${preUpdateBackupId ?? '(none)'} to get them back.`);
      return 'failed';
    }
    await this.abort(`${failed} The server's files and ${fromSoftware.template} ${describe(fromSoftware)} were put back.`);
    if (rollbackCopy && preUpdateBackupId) await this.dropRollbackCopy(preUpdateBackupId);
    return 'rolled_back';
  }

  /** The backup's files as the server's, `.cairn` installed again with `software`. */
  private async commitBackup(backup: BackupDoc, software: ServerSoftware, staged: (stage: StageSink) => Promise<void>): Promise<void> {
    const resolved = this.ctx.templates.resolve(software);
    if ('problem' in resolved) throw new StepFailure(`the software is not offered (${resolved.problem})`);
    const destination = await this.ctx.destinations.get(backup.destinationId);
    if (!destination) throw new StepFailure('the PRE_UPDATE backup\'s destination is gone');
    const nodeId = this.doc.nodeId!;
    await this.ctx.nodeReady(nodeId);
    const stage = await stageBackup(this.ctx.calls, this.ctx.destinations, nodeId, this.doc._id, backup, destination);
    try {
      await staged(stage);
      await stage.commit(JSON.stringify(resolved.template), software);
    } catch (e) {
      await stage.abort();
      throw e;
    }
  }

  /** Best effort: a rollback copy left behind is an ordinary PRE_UPDATE backup, listed and deletable. */
  private async dropRollbackCopy(backupId: string): Promise<void> {
    const backup = await this.ctx.deps.repos.backups.findById(backupId);
    if (!backup) return;
    await this.ctx.removal.remove([backup]).catch((err: unknown) => this.ctx.deps.logger.warn({ err, backupId }, 'removing an update\'s rollback copy failed'));
  }

  private readonly crashOf = (doc: ServerDoc) => this.ctx.servers.crashes.of(doc);

  private wait(judge: Parameters<typeof awaitServer>[3], timeoutMs: number, what: string): Promise<void> {
    return awaitServer(this.ctx.deps, this.ctx.changes, this.doc._id, judge, timeoutMs, what, this.stopping);
  }

  private async abort(message: string): Promise<void> {
    await this.aborted('UPDATE_FAILED', message);
  }
}
