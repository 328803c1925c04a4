import type { AuditScope } from '../../../core/audit-scope.js';
import type { Caller } from '../../../core/caller.js';
import { DomainError, invalidRequest } from '../../../core/errors.js';
import type { ServerEvent } from '../../../actors/server-machine.js';
import { networkId } from '../../../domain/network.js';
import type { ServerDoc } from '../../../store/records.js';
import type { Access } from '../../identity/access.js';
import { nowIso } from '../../deps.js';
import type { WorkflowDefinition, WorkflowEnd, WorkflowRunner } from '../workflow-runner.js';
import type { MigrationContext } from './migration-context.js';
import { MigrationRun } from './migration-run.js';

/** A migration begun: the server as it is now (MIGRATING), and the run's end. */
export interface BegunMigration {
  doc: ServerDoc;
  done: Promise<WorkflowEnd>;
}

/**
 * Moves servers between Nodes (POST /servers/{id}/migrate, and each server of a drain). The
 * request reserves the target and persists the workflow; the runner goes on with it.
 */
export class MigrationService implements WorkflowDefinition {
  readonly kind = 'MIGRATE';

  constructor(
    private readonly ctx: MigrationContext,
    private readonly access: Access,
    private readonly runner: WorkflowRunner,
  ) {}

  /** Needs `servers.update` in the server's team and the global `nodes.manage` (it places the server). */
  async migrate(caller: Caller, serverId: string, input: { nodeId: string }, audit: AuditScope) {
    audit.target(serverId).detail({ targetNodeId: input.nodeId });
    const doc = await this.ctx.servers.load(caller, serverId, 'servers.update');
    this.access.requireGlobal(caller, 'nodes.manage');
    if (doc.nodeId === input.nodeId) throw invalidRequest('body.nodeId: the server is on that Node already.');
    const { doc: begun } = await this.begin(doc, input.nodeId);
    audit.detail({ sourceNodeId: doc.nodeId, targetGamePort: begun.workflow?.targetGamePort });
    return this.ctx.servers.detail(begun);
  }

  /**
   * Reserves room and a game port on `nodeId` (or on the Node placement picks) and starts the
   * workflow at `reserving`; refused while the server is not READY (`phase_busy`) or when the
   * target has no room (`insufficient_capacity`).
   */
  async begin(doc: ServerDoc, nodeId: string | undefined): Promise<BegunMigration> {
    this.runner.refuseWhileStopping();
    const event: ServerEvent = { type: 'WORKFLOW_BEGIN', at: nowIso(this.ctx.deps), kind: 'MIGRATE', step: 'reserving' };
    this.ctx.servers.requireAccepts(doc, event);
    if (!doc.nodeId) throw invalidRequest('The server is not placed on a Node.');
    // The proxy keeps the network's port. The reservation is recorded in the placement turn, so no other placement takes the room.
    const begun = await this.ctx.placing.run(async (room) => {
      const fixedPort = doc.kind === 'PROXY' ? (await this.ctx.deps.repos.network.findById(networkId))?.port : undefined;
      const target = await room.place(doc.desired.resources, nodeId, fixedPort, this.ctx.templates.javaMinimum(doc.desired.software));
      const targetGamePort = fixedPort ?? (await room.allocatePort(target));
      if (target === doc.nodeId) throw new DomainError('insufficient_capacity', 'No other Node that accepts placements has room for this server.');
      return this.ctx.servers.apply(doc, { ...event, facts: { targetNodeId: target, targetGamePort } });
    });
    return { doc: begun, done: this.runner.launch(begun, 'forward') };
  }

  /** The run of a server's migration, with the names of the Nodes it involves for its messages. */
  async open(doc: ServerDoc, stopping: AbortSignal): Promise<MigrationRun> {
    const nodeIds = [doc.nodeId, doc.workflow?.targetNodeId, doc.workflow?.sourceNodeId].filter((id): id is string => Boolean(id));
    const names = new Map((await this.ctx.deps.repos.nodes.find({ _id: { $in: nodeIds } })).map((n) => [n._id, n.name]));
    return new MigrationRun(this.ctx, doc, names, stopping);
  }
}
