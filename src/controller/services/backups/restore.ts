import type { ServerEvent } from '../../actors/server-machine.js';
import { requireRoomForFiles } from '../servers/disk-room.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, invalidRequest } from '../../core/errors.js';
import type { ServerSoftware, WorkflowFacts } from '../../domain/server-spec.js';
import type { BackupDestinationDoc, BackupDoc, PluginInstallationDoc, ServerDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../templates/template-catalog.js';
import type { Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { nodeUnavailable, type NodeCalls } from '../agent-link/node-calls.js';
import type { NodeGateway } from '../nodes/node-gateway.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { ServerService } from '../servers/servers.js';
import { StageSink } from '../transfers/stage-sink.js';
import { backupDeadlines } from './backup-deadlines.js';
import { failureText } from './backup-failure.js';
import { awaitServer, isStopped } from '../servers/server-waits.js';
import { stageBackup } from './backup-stage.js';
import type { BackupRunner } from './backup-runner.js';
import type { BackupService } from './backups.js';
import type { BackupDestinations } from './destinations.js';
import { fileChangesEnded, type FileChangesUnderWay } from '../files/file-changes.js';

/** The steps of a RESTORE workflow, as the server's `workflow.step` shows them. */
export const restoreSteps = {
  preRestore: 'taking a PRE_RESTORE backup',
  stopping: 'stopping the server',
  staging: 'copying the backup into a stage on the Node',
  committing: 'replacing the server\'s files with the stage',
  committed: 'setting the recorded software and plugins',
} as const;

class RestoreFailure extends Error {}

/**
 * POST /backups/{id}/restore: a RESTORE workflow owned by the server's actor, each step persisted
 * before it runs. A PRE_RESTORE backup first (to the same destination), then the server held
 * stopped, a stage filled from the backup (on the Node for NODE_DIRECTORY, from the Controller's
 * store otherwise), the commit (`.cairn` installed again with the backup's software), the
 * recorded software and plugins, and the hold lifted. Any failure aborts the stage and rolls the
 * server back to READY with a RESTORE_FAILED condition that says what failed.
 */
export class RestoreWorkflow {
  private stopping = false;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly servers: ServerService,
    private readonly backups: BackupService,
    private readonly destinations: BackupDestinations,
    private readonly runner: BackupRunner,
    private readonly calls: NodeCalls,
    private readonly templates: TemplateCatalog,
    private readonly nodes: NodeGateway,
    private readonly serverChanges: ServerChangeHub,
    /** Resolves once the Node's Agent is connected, or gives up (the question that follows then fails). */
    private readonly nodeReady: (nodeId: string) => Promise<void>,
    private readonly fileChanges: Pick<FileChangesUnderWay, 'settled'>,
  ) {}

  async restore(caller: Caller, backupId: string, input: { serverId?: string }, audit: AuditScope) {
    audit.target(backupId).detail({ ...(input.serverId ? { serverId: input.serverId } : {}) });
    const { backup, server: source } = await this.backups.load(caller, backupId, 'backups.restore');
    const target = await this.targetOf(caller, backup, source, input.serverId);
    audit.detail({ serverId: target._id, sourceServerId: backup.serverId, destinationId: backup.destinationId });
    if (backup.state !== 'SUCCEEDED') throw conflict(`Only a SUCCEEDED backup can be restored; this one is ${backup.state}.`);
    requireRoomForFiles(target, backup.sizeBytes, 'The backup');
    const destination = await this.destinations.get(backup.destinationId);
    if (!destination) throw conflict('The backup\'s destination is gone.');
    if (destination.kind === 'NODE_DIRECTORY' && target.nodeId !== backup.nodeId) {
      throw conflict(`The backup is kept on Node ${backup.nodeId} (a NODE_DIRECTORY destination); the server is on ${target.nodeId ?? 'no Node'}, where it cannot be restored.`);
    }
    const resolved = this.templates.resolve(backup.software);
    if ('problem' in resolved) throw conflict(`The backup's software is no longer offered: ${resolved.problem}.`);
    if (!target.nodeId || !this.nodes.isConnected(target.nodeId)) throw nodeUnavailable();
    const begun = await this.servers.apply(target, { type: 'WORKFLOW_BEGIN', at: nowIso(this.deps), kind: 'RESTORE', step: restoreSteps.preRestore, facts: { backupId } });
    this.run(begun, backup, destination).catch((err: unknown) => this.deps.logger.error({ err, serverId: target._id, backupId }, 'a restore could not be rolled back'));
    return this.servers.detail(begun);
  }

  /**
   * The server the backup goes into: its own, or another of the same template named by
   * `serverId` (the only way for a deleted server's backup). The caller needs backups.restore there too.
   */
  private async targetOf(caller: Caller, backup: BackupDoc, source: ServerDoc | null, serverId: string | undefined): Promise<ServerDoc> {
    if (serverId === undefined || serverId === backup.serverId) {
      if (!source) throw invalidRequest('body.serverId: the backup\'s server was deleted; name the server to restore it into.');
      return source;
    }
    const target = await this.deps.repos.servers.findById(serverId);
    if (!target) throw invalidRequest(`body.serverId: no server ${serverId}.`);
    await this.access.require(caller, target.teamId, 'backups.restore', 'server', 'servers.read');
    if (target.desired.software.template !== backup.software.template) {
      throw invalidRequest(`body.serverId: that server runs ${target.desired.software.template}; the backup is of a ${backup.software.template} server.`);
    }
    return target;
  }

  private async step(server: ServerDoc, step: string, facts?: WorkflowFacts, software?: ServerSoftware): Promise<ServerDoc> {
    return this.servers.apply(server, { type: 'WORKFLOW_STEP', at: nowIso(this.deps), step, ...(facts ? { facts } : {}), ...(software ? { software } : {}) });
  }

  private async run(begun: ServerDoc, backup: BackupDoc, destination: BackupDestinationDoc): Promise<void> {
    await this.runner.exclusive(begun._id, async () => {
      let current = begun;
      let stage: StageSink | undefined;
      try {
        if (current.observed.installed) {
          const pre = await this.runner.create(current, destination, 'PRE_RESTORE');
          current = await this.step(current, restoreSteps.preRestore, { preRestoreBackupId: pre._id });
          const done = await this.runner.execute(pre._id);
          if (done?.state !== 'SUCCEEDED') throw new RestoreFailure(`the PRE_RESTORE backup failed (${done?.error ?? 'it is gone'})`);
        }
        current = await this.step(current, restoreSteps.stopping, { hold: true });
        await this.stopped(current._id);
        // New changes are refused since the restore began; one still under way ends before the files are replaced.
        await fileChangesEnded(this.fileChanges, current._id);
        current = await this.step(current, restoreSteps.staging);
        stage = await stageBackup(this.calls, this.destinations, current.nodeId!, current._id, backup, destination);
        current = await this.step(current, restoreSteps.committing, { stageId: stage.id });
        const software = this.templates.resolve(backup.software);
        if ('problem' in software) throw new RestoreFailure(`the backup's software is no longer offered (${software.problem})`);
        await stage.commit(JSON.stringify(software.template), backup.software);
        stage = undefined;
        await this.committed(current, backup);
      } catch (e) {
        // A Controller shutting down leaves the workflow as persisted: its next start settles it.
        if (this.stopping) return;
        await stage?.abort();
        const step = current.workflow?.step ?? 'restoring';
        // The commit's answer may be what was lost (a timeout, the link dropped): the Node knows.
        // Unknown (undefined) when it cannot be asked; before the commit, nothing was replaced.
        const onNode = step === restoreSteps.committing ? await this.committedOnNode(current).catch(() => undefined) : false;
        if (this.isStopping()) return;
        if (onNode) {
          await this.committed(current, backup);
          return;
        }
        const files = onNode === undefined
          ? 'The server\'s files may be replaced only in part: restore again, or restore its PRE_RESTORE backup.'
          : 'The server\'s files are as they were.';
        await this.abort(current._id, `Restoring backup ${backup._id} failed while ${step}: ${failureText(e)}. ${files}`);
      }
    });
  }

  /** The stage is the server's files: the backup's software and plugins become the server's. */
  private async committed(server: ServerDoc, backup: BackupDoc | null): Promise<void> {
    const current = await this.step(server, restoreSteps.committed, undefined, backup?.software);
    await this.finish(current, backup);
  }

  /** Asks the server's Node whether the stage of the workflow was committed; false when none was recorded. */
  private async committedOnNode(server: ServerDoc): Promise<boolean> {
    const stageId = server.workflow?.stageId;
    if (!stageId || !server.nodeId) return false;
    await this.nodeReady(server.nodeId);
    return StageSink.committed(this.calls, server.nodeId, stageId);
  }

  /** The recorded plugin installations replace the server's, then the hold lifts (READY, back to its desired runtime state). */
  private async finish(server: ServerDoc, backup: BackupDoc | null): Promise<void> {
    if (backup) {
      const at = nowIso(this.deps);
      await this.deps.repos.pluginInstallations.delete({ serverId: server._id });
      for (const plugin of backup.plugins) {
        const doc: PluginInstallationDoc = { ...plugin, _id: this.deps.ids.next(), serverId: server._id, key: `${server._id} ${plugin.pluginId}`, installedAt: at, updatedAt: at };
        await this.deps.repos.pluginInstallations.insert(doc);
      }
    }
    await this.servers.apply(server, { type: 'WORKFLOW_DONE', at: nowIso(this.deps) });
  }

  private async abort(serverId: string, message: string): Promise<void> {
    const current = await this.deps.repos.servers.findById(serverId);
    if (!current) return;
    const event: ServerEvent = { type: 'WORKFLOW_ABORTED', at: nowIso(this.deps), reason: 'RESTORE_FAILED', message };
    await this.servers.apply(current, event);
  }

  /** Resolves once the held server is reported not running; fails past the deadline. */
  private async stopped(serverId: string): Promise<void> {
    try {
      await awaitServer(this.deps, this.serverChanges, serverId, isStopped, backupDeadlines.stopMs, 'stop');
    } catch (e) {
      throw new RestoreFailure((e as Error).message);
    }
  }

  /** The Controller is stopping: work cut off now is settled by the next start, not rolled back by this process. */
  stop(): void {
    this.stopping = true;
  }

  /** Read again after a wait: `stop` may have been called meanwhile. */
  private isStopping(): boolean {
    return this.stopping;
  }

  /**
   * At start: a restore the Controller was running when it stopped is finished if its commit had
   * completed, and rolled back otherwise (the Agent drops the stage when its lease runs out). One
   * cut off while committing is settled by asking its Node, once its Agent is back, in the
   * background: the Controller's start does not wait for Agents.
   */
  async recover(): Promise<void> {
    for (const server of await this.deps.repos.servers.find({ phase: 'RESTORING' })) {
      const step = server.workflow?.step ?? '';
      const backupId = server.workflow?.backupId;
      if (step === restoreSteps.committed) {
        await this.finish(server, backupId ? await this.deps.repos.backups.findById(backupId) : null);
      } else if (step === restoreSteps.committing && server.workflow?.stageId) {
        this.settleCommit(server).catch((err: unknown) => this.deps.logger.error({ err, serverId: server._id, backupId }, 'a restore cut off while committing could not be settled'));
      } else {
        const files = step === restoreSteps.committing
          ? 'The server\'s files may be replaced only in part: restore again, or restore its PRE_RESTORE backup.'
          : 'The server\'s files are as they were.';
        await this.abort(server._id, `The Controller restarted while restoring backup ${backupId ?? ''} (${step}). ${files}`);
      }
    }
  }

  /**
   * Finishes the restore when the Node says its commit completed; otherwise it never began there
   * (an Agent finishes a commit cut off by its own crash before it reconnects), so the files are as
   * they were. A Node that cannot be asked leaves the answer unknown.
   */
  private async settleCommit(server: ServerDoc): Promise<void> {
    const backupId = server.workflow?.backupId;
    let committed: boolean | undefined;
    try {
      committed = await this.committedOnNode(server);
    } catch (e) {
      const message = `The Controller restarted while restoring backup ${backupId ?? ''} (${restoreSteps.committing}) and could not ask the Node whether the commit completed: ${failureText(e)}. The server's files may be replaced only in part: restore again, or restore its PRE_RESTORE backup.`;
      await this.abort(server._id, message);
      return;
    }
    const current = await this.deps.repos.servers.findById(server._id);
    if (current?.phase !== 'RESTORING') return;
    if (committed) await this.committed(current, backupId ? await this.deps.repos.backups.findById(backupId) : null);
    else await this.abort(server._id, `The Controller restarted while restoring backup ${backupId ?? ''} (${restoreSteps.committing}); the Node had not committed the stage. The server's files are as they were.`);
  }
}
