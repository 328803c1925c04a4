import type { BackupDoc, PluginInstallationDoc, ServerDoc } from '../../../store/records.js';
import type { TemplateCatalog } from '../../../adapters/software/template-catalog.js';
import type { NodeCalls } from '../../../link/node-calls.js';
import { backupDeadlines } from '../../backups/backup-deadlines.js';
import { failureText } from '../../backups/backup-failure.js';
import type { BackupRunner } from '../../backups/backup-runner.js';
import { stageBackup } from '../../backups/backup-stage.js';
import type { BackupDestinations } from '../../backups/destinations.js';
import type { ServiceDeps } from '../../deps.js';
import { fileChangesEnded, type FileChangesUnderWay } from '../../files/file-changes.js';
import type { ServerChangeHub } from '../../servers/change-hub.js';
import { awaitServer, isStopped } from '../../servers/server-waits.js';
import type { ServerAggregate } from '../../servers/aggregate.js';
import { StageSink } from '../../transfers/stage-sink.js';
import { unlessAborted } from '../report-waits.js';
import { StepFailure } from '../step-failure.js';
import type { WorkflowResult } from '../workflow-outcomes.js';
import { WorkflowSteps } from '../workflow-steps.js';

/** The steps of a RESTORE workflow, as the server's `workflow.step` shows them. */
export const restoreSteps = {
  preRestore: 'taking a PRE_RESTORE backup',
  stopping: 'stopping the server',
  staging: 'copying the backup into a stage on the Node',
  committing: 'replacing the server\'s files with the stage',
  committed: 'setting the recorded software and plugins',
} as const;

/** What every restore run works with. */
export interface RestoreContext {
  deps: ServiceDeps;
  servers: ServerAggregate;
  templates: TemplateCatalog;
  destinations: BackupDestinations;
  runner: Pick<BackupRunner, 'create' | 'execute'>;
  calls: NodeCalls;
  changes: ServerChangeHub;
  /** Resolves once the Node's Agent is connected, or gives up (the question that follows then fails). */
  nodeReady: (nodeId: string) => Promise<void>;
  /** File changes through the API under way: the restore waits for them before it replaces the files. */
  fileChanges: Pick<FileChangesUnderWay, 'settled'>;
}

const partly = 'The server\'s files may be replaced only in part: restore again, or restore its PRE_RESTORE backup.';
const untouched = 'The server\'s files are as they were.';

/**
 * One server's restore, as docs/backups.md describes it, each step persisted before it runs: a
 * PRE_RESTORE backup first (to the same destination), then the server held stopped, a stage
 * filled from the backup (on the Node for NODE_DIRECTORY, from the Controller's store otherwise),
 * the commit (`.cairn` installed again with the backup's software), the recorded software and
 * plugins, and the hold lifted. Any failure aborts the stage and rolls the server back to READY
 * with a RESTORE_FAILED condition that says what failed. The runner holds the server's turn, so
 * its PRE_RESTORE backup is the only one under way. A Controller stopping ends every long call at
 * once (the shutdown waits for the run, and the link closes only after it): the call goes on to
 * its own deadline unheeded, and the next start settles the restore from the step recorded.
 */
export class RestoreRun extends WorkflowSteps {
  constructor(private readonly ctx: RestoreContext, doc: ServerDoc, stopping: AbortSignal) {
    super(ctx, doc, stopping);
  }

  private get backupId(): string {
    return this.doc.workflow?.backupId ?? '';
  }

  async forward(): Promise<WorkflowResult> {
    let backup: BackupDoc | null = null;
    let stage: StageSink | undefined;
    try {
      backup = await this.ctx.deps.repos.backups.findById(this.backupId);
      if (!backup) throw new StepFailure('the backup is gone');
      const destination = await this.ctx.destinations.get(backup.destinationId);
      if (!destination) throw new StepFailure('the backup\'s destination is gone');
      if (this.doc.observed.installed) {
        const pre = await this.ctx.runner.create(this.doc, destination, 'PRE_RESTORE');
        await this.step(restoreSteps.preRestore, { preRestoreBackupId: pre._id });
        const done = await unlessAborted(this.ctx.runner.execute(pre._id), this.stopping);
        if (done?.state !== 'SUCCEEDED') throw new StepFailure(`the PRE_RESTORE backup failed (${done?.error ?? 'it is gone'})`);
      }
      await this.step(restoreSteps.stopping, { hold: true });
      await awaitServer(this.ctx.deps, this.ctx.changes, this.doc._id, isStopped, backupDeadlines.stopMs, 'stop', this.stopping);
      // New changes are refused since the restore began; one still under way ends before the files are replaced.
      await fileChangesEnded(this.ctx.fileChanges, this.doc._id);
      await this.step(restoreSteps.staging);
      stage = await unlessAborted(stageBackup(this.ctx.calls, this.ctx.destinations, this.doc.nodeId!, this.doc._id, backup, destination), this.stopping);
      await this.step(restoreSteps.committing, { stageId: stage.id });
      const software = this.ctx.templates.resolve(backup.software);
      if ('problem' in software) throw new StepFailure(`the backup's software is no longer offered (${software.problem})`);
      await unlessAborted(stage.commit(JSON.stringify(software.template), backup.software), this.stopping);
      stage = undefined;
    } catch (e) {
      this.endIfStopping();
      await stage?.abort();
      const step = this.doc.workflow?.step ?? 'restoring';
      // The commit's answer may be what was lost (a timeout, the link dropped): the Node knows.
      // Unknown (undefined) when it cannot be asked; before the commit, nothing was replaced.
      const onNode = step === restoreSteps.committing ? await this.committedOnNode().catch(() => undefined) : false;
      this.endIfStopping();
      if (!onNode) return this.rollback(`Restoring backup ${this.backupId} failed while ${step}: ${failureText(e)}. ${onNode === undefined ? partly : untouched}`, onNode === false);
    }
    return this.committed(backup);
  }

  /**
   * A restore found in the store at start: finished if its commit had completed, rolled back
   * otherwise (the Agent drops the stage when its lease runs out). One cut off while committing
   * is settled by asking its Node once its Agent is back: an Agent finishes a commit cut off by its
   * own crash before it reconnects, so a Node that says no never began it.
   */
  async resume(): Promise<WorkflowResult> {
    const step = this.doc.workflow?.step ?? '';
    const restarted = `The Controller restarted while restoring backup ${this.backupId} (${step})`;
    if (step === restoreSteps.committed) return this.finish(await this.backup());
    if (step !== restoreSteps.committing) return this.rollback(`${restarted}. ${untouched}`, true);
    if (!this.doc.workflow?.stageId) return this.rollback(`${restarted}. ${partly}`, false);
    let committed: boolean;
    try {
      committed = await this.committedOnNode();
    } catch (e) {
      this.endIfStopping();
      return this.rollback(`${restarted} and could not ask the Node whether the commit completed: ${failureText(e)}. ${partly}`, false);
    }
    if (committed) return this.committed(await this.backup());
    return this.rollback(`${restarted}; the Node had not committed the stage. ${untouched}`, true);
  }

  private async backup(): Promise<BackupDoc | null> {
    return this.backupId ? this.ctx.deps.repos.backups.findById(this.backupId) : null;
  }

  /** The stage is the server's files: the backup's software and plugins become the server's. */
  private async committed(backup: BackupDoc | null): Promise<WorkflowResult> {
    await this.step(restoreSteps.committed, undefined, backup?.software);
    return this.finish(backup);
  }

  /** Asks the server's Node whether the stage of the workflow was committed; false when none was recorded. */
  private async committedOnNode(): Promise<boolean> {
    const stageId = this.doc.workflow?.stageId;
    const nodeId = this.doc.nodeId;
    if (!stageId || !nodeId) return false;
    const ask = async () => {
      await this.ctx.nodeReady(nodeId);
      return StageSink.committed(this.ctx.calls, nodeId, stageId);
    };
    return unlessAborted(ask(), this.stopping);
  }

  /** The recorded plugin installations replace the server's, then the hold lifts (READY, back to its desired runtime state). */
  private async finish(backup: BackupDoc | null): Promise<WorkflowResult> {
    if (backup) {
      const at = this.now();
      const serverId = this.doc._id;
      await this.ctx.deps.repos.pluginInstallations.delete({ serverId });
      for (const plugin of backup.plugins) {
        const doc: PluginInstallationDoc = { ...plugin, _id: this.ctx.deps.ids.next(), serverId, key: `${serverId} ${plugin.pluginId}`, installedAt: at, updatedAt: at };
        await this.ctx.deps.repos.pluginInstallations.insert(doc);
      }
    }
    await this.done();
    return 'succeeded';
  }

  /** READY again with RESTORE_FAILED: rolled back when the files are known to be as they were, failed when they may not be. */
  private async rollback(message: string, filesAsTheyWere: boolean): Promise<WorkflowResult> {
    await this.aborted('RESTORE_FAILED', message);
    return filesAsTheyWere ? 'rolled_back' : 'failed';
  }
}
