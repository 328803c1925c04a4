import type { WorkflowKind } from '../../domain/server-spec.js';
import { DomainError } from '../../core/errors.js';
import type { ServerDoc } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';
import { Stopped } from './step-failure.js';
import type { WorkflowHandoff } from './workflow-handoff.js';
import type { WorkflowRun } from './workflow-steps.js';
import type { RecordedWorkflowKind, WorkflowOutcomes, WorkflowResult } from './workflow-outcomes.js';

/**
 * How a run ended in this process: its result, or 'stopped' (the store says where; the next start
 * goes on), or 'elsewhere' (handed to the Controller that drives the server's Node, and ended there).
 */
export type WorkflowEnd = WorkflowResult | 'stopped' | 'elsewhere';

/** A kind of workflow: how its run is built for a server whose record says it is under way. */
export interface WorkflowDefinition {
  kind: RecordedWorkflowKind;
  open(doc: ServerDoc, stopping: AbortSignal): WorkflowRun | Promise<WorkflowRun>;
}

/** Work made of workflows (a drain), carried on at start once every server's own workflow was resumed; `nodeId` narrows it to one Node's. */
export interface CarriedOn {
  resume(nodeId?: string): Promise<void>;
}

/** Runs `work` in the server's turn: its backups wait meanwhile, and it waits for the one under way. */
export type ServerTurn = <T>(serverId: string, work: () => Promise<T>) => Promise<T>;

/**
 * What every workflow of a server shares: its run goes on in the background, one per server, in
 * the server's turn (a backup under way ends first; a PRE_RESTORE or PRE_UPDATE backup is taken
 * inside it); its end is counted (`cairn_workflows_total`). At start, `resume` is the one verb:
 * every workflow the store holds is finished or rolled back by its kind, then the work made of
 * workflows carries on. At shutdown, one signal stops every run where it is, leaving its record
 * for the next start; none is rolled back by a process that is going away.
 */
export class WorkflowRunner {
  private readonly definitions = new Map<WorkflowKind, WorkflowDefinition>();
  private readonly carriedOn: CarriedOn[] = [];
  private readonly runs = new Map<string, Promise<WorkflowEnd>>();
  private readonly stopping = new AbortController();
  private handoff?: WorkflowHandoff;

  constructor(private readonly deps: ServiceDeps, private readonly turn: ServerTurn, readonly outcomes: WorkflowOutcomes) {}

  define(definition: WorkflowDefinition): void {
    this.definitions.set(definition.kind, definition);
  }

  carryOn(work: CarriedOn): void {
    this.carriedOn.push(work);
  }

  /** Aborted when the Controller stops: waits and Node calls of a run listen to it. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Before a workflow is begun: a stopping Controller begins none (`not_ready`). */
  refuseWhileStopping(): void {
    if (this.stopped) throw new DomainError('not_ready', 'The Controller is stopping.');
  }

  /**
   * With several Controllers: a workflow begun here on a server whose Node another Controller
   * drives is handed to that one (see WorkflowHandoff).
   */
  handOffWith(handoff: WorkflowHandoff): void {
    this.handoff = handoff;
  }

  /**
   * Runs the server's workflow (begun now, or resumed) in the background; answers its end. One
   * begun now on a Node another Controller drives runs there; its end is when the record says so.
   */
  launch(doc: ServerDoc, how: 'forward' | 'resume'): Promise<WorkflowEnd> {
    const definition = this.definitionOf(doc);
    const handoff = how === 'forward' ? this.handoff : undefined;
    if (!handoff) return this.runHere(doc, definition, how);
    const startedAt = doc.workflow?.startedAt;
    // Held as this server's run until the holder took it, so a resume meanwhile does not start it twice.
    // A failed look-up of the holder (the store) leaves the run here, like a holder that did not take it.
    const done = handoff.handOff(doc).catch(() => false).then(async (taken): Promise<WorkflowEnd> => {
      if (!taken) return this.runHere(doc, definition, how);
      if (this.runs.get(doc._id) === done) this.runs.delete(doc._id);
      await handoff.ended(doc._id, startedAt, this.stopping.signal);
      return 'elsewhere';
    });
    this.runs.set(doc._id, done);
    return done;
  }

  /**
   * A workflow another Controller begun on a server whose Node this one drives (its handoff):
   * run here as if begun here, unless it runs here already. False when this Controller does not
   * drive the Node (any more), or the record names no workflow.
   */
  async adopt(serverId: string): Promise<boolean> {
    if (this.stopped || !this.handoff) return false;
    const doc = await this.deps.repos.servers.findById(serverId);
    if (!doc?.workflow || !doc.nodeId || !this.handoff.drives(doc.nodeId) || !this.definitions.has(doc.workflow.kind)) return false;
    if (!this.runs.has(serverId)) void this.runHere(doc, this.definitionOf(doc), 'forward');
    return true;
  }

  private definitionOf(doc: ServerDoc): WorkflowDefinition {
    const kind = doc.workflow?.kind;
    const definition = kind === undefined ? undefined : this.definitions.get(kind);
    if (!definition) throw new Error(`server ${doc._id} has no workflow this Controller runs (${kind ?? 'none'})`);
    return definition;
  }

  private runHere(doc: ServerDoc, definition: WorkflowDefinition, how: 'forward' | 'resume'): Promise<WorkflowEnd> {
    const done = this.turn(doc._id, async () => {
      if (this.stopped) throw new Stopped();
      const run = await definition.open(doc, this.stopping.signal);
      return how === 'forward' ? run.forward() : run.resume();
    })
      .then((result): WorkflowEnd => {
        this.outcomes.record(definition.kind, result, doc._id);
        return result;
      })
      .catch((err: unknown): WorkflowEnd => {
        // Whatever the run could not write stays in the store; the next start settles it.
        if (!(err instanceof Stopped)) this.deps.logger.error({ err, serverId: doc._id, kind: definition.kind }, 'a workflow run failed');
        return 'stopped';
      })
      .finally(() => {
        if (this.runs.get(doc._id) === done) this.runs.delete(doc._id);
      });
    this.runs.set(doc._id, done);
    return done;
  }

  /** The server's workflow running in this Controller, if any: a drain waits for it before it looks again. */
  runOf(serverId: string): Promise<WorkflowEnd> | undefined {
    return this.runs.get(serverId);
  }

  /**
   * At start (before any Agent is connected), or when this Controller gains a Node another drove
   * (`nodeId`: that Node's servers only): every workflow the store holds, its Controller stopped or
   * killed mid-way, is finished or rolled back in the background; then the work made of workflows
   * carries on, seeing the runs it may wait for. A run already going on here is left to go on.
   */
  async resume(nodeId?: string): Promise<void> {
    const kinds = [...this.definitions.keys()];
    const filter = { 'workflow.kind': { $in: kinds }, ...(nodeId === undefined ? {} : { nodeId }) };
    for (const doc of await this.deps.repos.servers.find(filter, { sort: { _id: 1 } })) if (!this.runs.has(doc._id)) void this.launch(doc, 'resume');
    for (const work of this.carriedOn) await work.resume(nodeId);
  }

  /** Stops every run where it is, leaving its workflow in the store for the next start. */
  async stop(): Promise<void> {
    this.stopping.abort(new Stopped());
    await Promise.all(this.runs.values());
  }
}
