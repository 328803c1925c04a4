import type { AuditScope } from '../../../core/audit-scope.js';
import type { Caller } from '../../../core/caller.js';
import { nowIso, type ServiceDeps } from '../../deps.js';
import type { NodeDirectory } from '../../../core/node-directory.js';
import type { NodeService } from '../../nodes/nodes.js';
import type { CarriedOn, WorkflowRunner } from '../workflow-runner.js';
import type { MigrationService } from './migrations.js';

/** How often a drain carried on at start looks whether the Agents are back. */
const reconnectPollMs = 1000;

/**
 * POST /nodes/{id}/drain: the Node is disabled (so placement never picks it again) and every
 * server READY on it is migrated, one at a time, to the Node placement picks. A server that cannot
 * move (no room elsewhere, busy, rolled back) stays, and the drain goes on with the next.
 *
 * The drain is marked on the Node until it ends, so a Controller that stops mid-way carries it on
 * at its next start. Enabling the Node ends it after the move under way.
 */
export class NodeDrain implements CarriedOn {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly nodes: NodeService,
    private readonly migrations: MigrationService,
    private readonly runner: Pick<WorkflowRunner, 'stopped' | 'runOf'>,
    private readonly directory: Pick<NodeDirectory, 'list'>,
    /** How long a drain carried on at start waits for another Node to take servers: the time after which a silent Node is unreachable anyway. */
    private readonly reconnectGraceMs: number,
  ) {}

  /** Nodes whose drain runs in this process: one gained again is not drained twice. */
  private readonly moving = new Set<string>();

  async drain(caller: Caller, nodeId: string, audit: AuditScope) {
    await this.nodes.disable(caller, nodeId, audit);
    const servers = await this.deps.repos.servers.find({ nodeId, phase: 'READY' }, { sort: { _id: 1 } });
    const serverIds = servers.map((s) => s._id);
    audit.detail({ serverIds });
    await this.deps.repos.nodes.update({ _id: nodeId }, { drain: { startedAt: nowIso(this.deps) } });
    // Read again: the Node answered carries its DRAINING condition.
    const node = await this.nodes.get(caller, nodeId);
    void this.moveAll(nodeId);
    return { node, serverIds };
  }

  /**
   * Drains a stopped Controller left under way (after the migrations it left were resumed). Right
   * after a start no Agent is connected yet, so each waits until another Node takes placements (or
   * the grace ran out) rather than find no room for every server. `nodeId` narrows it to that Node.
   */
  async resume(nodeId?: string): Promise<void> {
    for (const node of await this.deps.repos.nodes.find({ drain: { $exists: true }, ...(nodeId === undefined ? {} : { _id: nodeId }) })) {
      if (this.moving.has(node._id)) continue;
      this.deps.logger.info({ nodeId: node._id, since: node.drain?.startedAt }, 'carrying on the drain of a Node');
      this.moving.add(node._id);
      void this.untilAnotherNodeTakesPlacements(node._id).then(() => this.moveAll(node._id), () => this.moving.delete(node._id));
    }
  }

  private async untilAnotherNodeTakesPlacements(nodeId: string): Promise<void> {
    const deadline = Date.now() + this.reconnectGraceMs;
    while (Date.now() < deadline && !this.runner.stopped) {
      if ((await this.directory.list()).some((n) => n.nodeId !== nodeId && n.acceptsPlacements)) return;
      await new Promise((resolve) => setTimeout(resolve, reconnectPollMs));
    }
  }

  /**
   * Moves the servers READY on the Node, each tried once, until none is left to try; a migration
   * of the Node's still running (one resumed at start) is waited for first, since it may end with
   * the server back here.
   */
  private async moveAll(nodeId: string): Promise<void> {
    this.moving.add(nodeId);
    try {
      await this.moveEach(nodeId);
    } finally {
      this.moving.delete(nodeId);
    }
  }

  private async moveEach(nodeId: string): Promise<void> {
    const tried = new Set<string>();
    for (;;) {
      // Left marked: the next start carries on.
      if (this.runner.stopped) return;
      const node = await this.deps.repos.nodes.findById(nodeId);
      if (node?.adminState !== 'DISABLED') break;
      const onNode = await this.deps.repos.servers.find({ nodeId }, { sort: { _id: 1 } });
      const next = onNode.find((s) => s.phase === 'READY' && !tried.has(s._id));
      if (!next) {
        const running = onNode.map((s) => this.runner.runOf(s._id)).filter((run) => run !== undefined);
        if (running.length === 0) break;
        await Promise.all(running);
        continue;
      }
      tried.add(next._id);
      try {
        const { done } = await this.migrations.begin(next, undefined);
        await done;
      } catch (err) {
        this.deps.logger.warn({ err, serverId: next._id, nodeId }, 'the drain could not move a server; it stays on the Node');
      }
    }
    await this.deps.repos.nodes.update({ _id: nodeId }, {}, ['drain']).catch((err: unknown) => {
      this.deps.logger.warn({ err, nodeId }, 'could not clear the drain mark; the next start looks again');
    });
  }
}
