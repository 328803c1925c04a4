import type { AuditScope } from '../../../core/audit-scope.js';
import type { Caller } from '../../../core/caller.js';
import { conflict, invalidRequest } from '../../../core/errors.js';
import type { BackupDoc, ServerDoc } from '../../../store/records.js';
import { nodeUnavailable } from '../../../link/node-calls.js';
import type { BackupService } from '../../backups/backups.js';
import { nowIso } from '../../deps.js';
import type { Access } from '../../identity/access.js';
import type { NodeDirectory } from '../../../core/node-directory.js';
import { requireRoomForFiles } from '../../../domain/disk-room.js';
import type { WorkflowDefinition, WorkflowRunner } from '../workflow-runner.js';
import { RestoreRun, restoreSteps, type RestoreContext } from './restore-run.js';

/**
 * POST /backups/{id}/restore: the request is checked (a SUCCEEDED backup, its destination and
 * software still there, a NODE_DIRECTORY backup only onto its own Node, room for its files) and
 * the RESTORE workflow persisted; the runner goes on with it.
 */
export class RestoreService implements WorkflowDefinition {
  readonly kind = 'RESTORE';

  constructor(
    private readonly ctx: RestoreContext,
    private readonly access: Access,
    private readonly backups: Pick<BackupService, 'load'>,
    private readonly nodes: Pick<NodeDirectory, 'isConnected'>,
    private readonly runner: WorkflowRunner,
  ) {}

  async restore(caller: Caller, backupId: string, input: { serverId?: string }, audit: AuditScope) {
    audit.target(backupId).detail({ ...(input.serverId ? { serverId: input.serverId } : {}) });
    const { backup, server: source } = await this.backups.load(caller, backupId, 'backups.restore');
    const target = await this.targetOf(caller, backup, source, input.serverId);
    audit.detail({ serverId: target._id, sourceServerId: backup.serverId, destinationId: backup.destinationId });
    if (backup.state !== 'SUCCEEDED') throw conflict(`Only a SUCCEEDED backup can be restored; this one is ${backup.state}.`);
    requireRoomForFiles(target, backup.sizeBytes, 'The backup');
    const destination = await this.ctx.destinations.get(backup.destinationId);
    if (!destination) throw conflict('The backup\'s destination is gone.');
    if (destination.kind === 'NODE_DIRECTORY' && target.nodeId !== backup.nodeId) {
      throw conflict(`The backup is kept on Node ${backup.nodeId} (a NODE_DIRECTORY destination); the server is on ${target.nodeId ?? 'no Node'}, where it cannot be restored.`);
    }
    const resolved = this.ctx.templates.resolve(backup.software);
    if ('problem' in resolved) throw conflict(`The backup's software is no longer offered: ${resolved.problem}.`);
    if (!target.nodeId || !this.nodes.isConnected(target.nodeId)) throw nodeUnavailable();
    const begun = await this.ctx.servers.apply(target, { type: 'WORKFLOW_BEGIN', at: nowIso(this.ctx.deps), kind: 'RESTORE', step: restoreSteps.preRestore, facts: { backupId } });
    void this.runner.launch(begun, 'forward');
    return this.ctx.servers.detail(begun);
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
    const target = await this.ctx.deps.repos.servers.findById(serverId);
    if (!target) throw invalidRequest(`body.serverId: no server ${serverId}.`);
    await this.access.require(caller, target.teamId, 'backups.restore', 'server', 'servers.read');
    if (target.desired.software.template !== backup.software.template) {
      throw invalidRequest(`body.serverId: that server runs ${target.desired.software.template}; the backup is of a ${backup.software.template} server.`);
    }
    return target;
  }

  open(doc: ServerDoc, stopping: AbortSignal): RestoreRun {
    return new RestoreRun(this.ctx, doc, stopping);
  }
}
