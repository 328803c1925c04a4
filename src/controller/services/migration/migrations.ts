import { accepts } from '../../actors/server-fleet.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { DomainError, invalidRequest } from '../../core/errors.js';
import type { ServerEvent } from '../../actors/server-machine.js';
import type { ServerDoc } from '../../store/records.js';
import type { Access } from '../identity/access.js';
import { nowIso } from '../deps.js';
import { MigrationRun, Stopped, type MigrationContext } from './migration-steps.js';
import type { WorkflowOutcomes, WorkflowResult } from './workflow-outcomes.js';

/** A migration begun: the server as it is now (MIGRATING), and the run's end. */
export interface BegunMigration {
  doc: ServerDoc;
  done: Promise<WorkflowResult | 'stopped'>;
}

/**
 * Moves servers between Nodes (POST /servers/{id}/migrate, and each server of a drain). The
 * request reserves the target and persists the workflow; the run then goes on in the background,
 * one per server. At start, every migration found in the store is resumed or rolled back; at
 * shutdown, runs stop where they are (the store says where) without rolling anything back.
 */
export class MigrationService {
  private readonly runs = new Map<string, Promise<WorkflowResult | 'stopped'>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly ctx: MigrationContext,
    private readonly access: Access,
    private readonly outcomes: WorkflowOutcomes,
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

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /**
   * Reserves room and a game port on `nodeId` (or on the Node placement picks) and starts the
   * workflow at `reserving`; refused while the server is not READY (`phase_busy`) or when the
   * target has no room (`insufficient_capacity`).
   */
  async begin(doc: ServerDoc, nodeId: string | undefined): Promise<BegunMigration> {
    if (this.stopped) throw new DomainError('not_ready', 'The Controller is stopping.');
    const event: ServerEvent = { type: 'WORKFLOW_BEGIN', at: nowIso(this.ctx.deps), kind: 'MIGRATE', step: 'reserving' };
    const actor = this.ctx.servers.actorOf(doc);
    if (!accepts(actor, event)) throw this.ctx.servers.busy(actor);
    if (!doc.nodeId) throw invalidRequest('The server is not placed on a Node.');
    const begun = await this.ctx.servers.reserveMove(doc, nodeId, (target) => {
      if (target.nodeId === doc.nodeId) throw new DomainError('insufficient_capacity', 'No other Node that accepts placements has room for this server.');
      return this.ctx.servers.apply(doc, { ...event, facts: { targetNodeId: target.nodeId, targetGamePort: target.gamePort } });
    });
    return { doc: begun, ...(await this.launch(begun, 'forward')) };
  }

  /** Every migration the store holds (a Controller stopped or killed mid-way): resumed or rolled back. */
  async resume(): Promise<void> {
    for (const doc of await this.ctx.deps.repos.servers.find({ phase: 'MIGRATING' })) await this.launch(doc, 'resume');
  }

  /** The server's migration running in this Controller, if any: a drain waits for it before it looks again. */
  runOf(serverId: string): Promise<unknown> | undefined {
    return this.runs.get(serverId);
  }

  /** Stops every run where it is, leaving its workflow in the store for the next start. */
  async stop(): Promise<void> {
    this.stopping.abort(new Stopped());
    await Promise.all(this.runs.values());
  }

  private async launch(doc: ServerDoc, how: 'forward' | 'resume'): Promise<Pick<BegunMigration, 'done'>> {
    const nodeIds = [doc.nodeId, doc.workflow?.targetNodeId, doc.workflow?.sourceNodeId].filter((id): id is string => Boolean(id));
    const names = new Map((await this.ctx.deps.repos.nodes.find({ _id: { $in: nodeIds } })).map((n) => [n._id, n.name]));
    const run = new MigrationRun(this.ctx, doc, names, this.stopping.signal);
    const done = (how === 'forward' ? run.forward() : run.resume())
      .then((result) => {
        this.outcomes.record('MIGRATE', result);
        return result;
      })
      .catch((err: unknown): 'stopped' => {
        // Whatever the run could not write stays in the store; the next start resumes from there.
        if (!(err instanceof Stopped)) this.ctx.deps.logger.error({ err, serverId: doc._id }, 'a migration run failed');
        return 'stopped';
      })
      .finally(() => this.runs.delete(doc._id));
    this.runs.set(doc._id, done);
    return { done };
  }
}
