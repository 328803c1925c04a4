import { manifestDelta } from '../../../../shared/backup/manifest.js';
import { emptyObserved } from '../../../domain/server-spec.js';
import type { ServerDoc } from '../../../store/records.js';
import { fileChangesEnded } from '../../files/file-changes.js';
import type { ServerReport } from '../../../domain/server-report.js';
import { SnapshotSource } from '../../transfers/snapshot-source.js';
import { StageSink } from '../../transfers/stage-sink.js';
import { awaitReport, unlessAborted } from '../report-waits.js';
import { StepFailure } from '../step-failure.js';
import { WorkflowCalls } from '../workflow-calls.js';
import type { WorkflowResult } from '../workflow-outcomes.js';
import { WorkflowSteps } from '../workflow-steps.js';
import type { MigrationContext } from './migration-context.js';
import { MigrationCopy } from './migration-copy.js';

/** After these steps the server lives on its target: a restart finishes the migration; before them it rolls back. */
const switchedSteps = new Set(['starting', 'cleaning']);
/** In these steps the target may hold a committed copy of the server, which a rollback has it remove. */
const unclearCommitSteps = new Set(['switching', 'rolling back']);

const reasonOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * One server's migration, as docs/backups.md describes it: each step persisted (WORKFLOW_STEP)
 * before it runs, so a Controller that restarts knows where it was. Before the switch any failure
 * rolls back (the target's stage aborted, the hold lifted, MIGRATION_FAILED); after it the
 * migration always finishes. Every wait has a deadline; a Node that becomes unreachable before
 * the switch ends the wait at once.
 */
export class MigrationRun extends WorkflowSteps {
  private sink?: StageSink;
  private readonly calls: WorkflowCalls;
  private readonly copier: MigrationCopy;
  private readonly lost = new AbortController();
  /** Aborted when a Node is lost before the switch or the Controller stops. */
  private readonly guard: AbortSignal;

  constructor(
    private readonly ctx: MigrationContext,
    doc: ServerDoc,
    private readonly names: ReadonlyMap<string, string>,
    stopping: AbortSignal,
  ) {
    super(ctx, doc, stopping);
    this.calls = new WorkflowCalls(ctx.agents, this.name, ctx.forward);
    this.copier = new MigrationCopy(ctx, this.calls, doc._id);
    this.guard = AbortSignal.any([this.lost.signal, stopping]);
  }

  private name = (nodeId: string) => this.names.get(nodeId) ?? nodeId;

  private get workflow() {
    const { workflow } = this.doc;
    if (workflow?.kind !== 'MIGRATE' || !workflow.targetNodeId) throw new Error(`server ${this.doc._id} is not migrating`);
    return workflow;
  }

  /** A migration just reserved: copy, stop, sync, switch, then finish. */
  async forward(): Promise<WorkflowResult> {
    const source = this.doc.nodeId!;
    const target = this.workflow.targetNodeId!;
    const unwatch = this.ctx.nodeStates.subscribe((state) => {
      if ((state.nodeId === source || state.nodeId === target) && state.connectionState === 'UNREACHABLE') {
        this.lost.abort(new StepFailure(`Node ${this.name(state.nodeId)} became unreachable`));
      }
    });
    let started: Promise<ServerReport>;
    try {
      ({ started } = await this.moveFiles(source, target));
    } catch (e) {
      this.endIfStopping();
      return await this.rollback(reasonOf(e), unclearCommitSteps.has(this.workflow.step));
    } finally {
      unwatch();
    }
    return this.finish(started);
  }

  /** A migration found in the store at start: finished if it had switched, else rolled back. */
  async resume(): Promise<WorkflowResult> {
    const { step } = this.workflow;
    if (switchedSteps.has(step)) return this.finish();
    return this.rollback('the Controller restarted during the migration', unclearCommitSteps.has(step));
  }

  /** Everything up to and including the switch; answers the wait for the target to run the server. */
  private async moveFiles(source: string, target: string): Promise<{ started: Promise<ServerReport> }> {
    for (const nodeId of [source, target]) {
      if (!this.ctx.directory.isConnected(nodeId)) throw new StepFailure(`Node ${this.name(nodeId)} is not connected`);
    }
    const resolved = this.ctx.templates.resolve(this.doc.desired.software);
    if ('problem' in resolved) throw new StepFailure(`the software is no longer offered (${resolved.problem})`);
    const template = resolved.template;

    await this.step('copying');
    const sink = await unlessAborted(StageSink.begin(this.calls, target, this.doc._id), this.guard);
    this.sink = sink;
    await unlessAborted(this.copy(source, sink, false), this.guard);

    const stopped = this.stoppedOn(source);
    await this.step('stopping', { hold: true });
    await unlessAborted(stopped, this.guard);
    // New changes are refused since the migration began; one still under way lands before the last copy.
    await unlessAborted(fileChangesEnded(this.ctx.fileChanges, this.doc._id, this.ctx.timings.fileChangesMs), this.guard);

    await this.step('syncing');
    await unlessAborted(this.copy(source, sink, true), this.guard);

    await this.step('switching');
    await unlessAborted(sink.commit(JSON.stringify(template), this.doc.desired.software), this.guard);
    const started = this.startedOn(target);
    // Written even if the Controller is stopping now: the commit is done, and the record must say so.
    this.doc = await this.ctx.servers.apply(
      this.doc,
      { type: 'WORKFLOW_STEP', at: this.now(), step: 'starting', facts: { hold: false, sourceNodeId: source } },
      // Only the target's reports count from now on; until it reports, nothing is known of the server there.
      emptyObserved(),
      { nodeId: target, gamePort: this.workflow.targetGamePort },
    );
    return { started };
  }

  /**
   * Copies the source's files into the stage. The first pass reads the running server as it is
   * (a file written meanwhile is staged as read), from a snapshot that does not hash the world
   * first: each file is checked against the sha256 computed as it is sent, and the source keeps
   * those hashes for the second pass. The second, of the stopped server, copies only what differs
   * from the stage and removes what went, each file checked against the manifest. The workflow
   * records the path the files took (`copyPath`) as soon as it is known.
   */
  private async copy(source: string, sink: StageSink, sync: boolean): Promise<void> {
    const staged = sync ? await sink.scan() : [];
    const snapshot = await SnapshotSource.open(this.calls, source, this.doc._id, { quiesce: false, unhashed: !sync });
    try {
      const delta = manifestDelta(staged, snapshot.entries);
      for (const path of delta.remove) await sink.remove(path);
      const path = await this.copier.copy(snapshot, sink, [...delta.directories, ...delta.copy], sync);
      if (this.workflow.copyPath !== path) await this.step(this.workflow.step, { copyPath: path });
    } finally {
      await snapshot.close();
    }
  }

  /** Settles once the source has stopped the server (right away if it is stopped and meant to be). */
  private stoppedOn(source: string): Promise<unknown> {
    const { generation, desired, observed } = this.doc;
    const stopped = (r: Pick<ServerReport, 'runtimeState' | 'restarting' | 'observedGeneration'>) =>
      r.observedGeneration === generation && (r.runtimeState === 'STOPPED' || (r.runtimeState === 'CRASHED' && !r.restarting));
    if (desired.state === 'STOPPED' && stopped(observed)) return Promise.resolve();
    return awaitReport({
      feed: this.ctx.reports, nodeId: source, serverId: this.doc._id, accept: stopped, timeoutMs: this.ctx.timings.stopMs,
      what: 'stop the server', nodeName: this.name(source), signal: this.guard,
    });
  }

  /**
   * Settles once the target reports the server installed and in its desired runtime state, or
   * crashed for good (its conditions say why; the server is on the target either way).
   */
  private startedOn(target: string): Promise<ServerReport> {
    const { generation, desired } = this.doc;
    const want = desired.state === 'RUNNING' ? 'RUNNING' : 'STOPPED';
    return awaitReport({
      feed: this.ctx.reports, nodeId: target, serverId: this.doc._id, timeoutMs: this.ctx.timings.startMs,
      accept: (r) => r.installed && r.observedGeneration === generation && (r.runtimeState === want || (r.runtimeState === 'CRASHED' && !r.restarting)),
      what: want === 'RUNNING' ? 'start the server' : 'take the server in', nodeName: this.name(target), signal: this.stopping,
    });
  }

  /**
   * Settles once the Node has removed its copy. A Node another Controller drives reports to that
   * one, and the record does not say a copy went: its holder is told through the record, and the
   * run does not wait.
   */
  private removedFrom(nodeId: string): Promise<unknown> {
    if (!this.ctx.drives(nodeId)) return Promise.resolve();
    return awaitReport({
      feed: this.ctx.reports, nodeId, serverId: this.doc._id, accept: (r) => r.removed, timeoutMs: this.ctx.timings.removeMs,
      what: 'remove its copy of the server', nodeName: this.name(nodeId), signal: this.stopping,
    });
  }

  /** A wait past the switch: its deadline is noted and the migration goes on (only stopping ends the run). */
  private async tolerate(wait: Promise<unknown>, step: string): Promise<void> {
    try {
      await wait;
    } catch (err) {
      this.endIfStopping();
      this.ctx.deps.logger.warn({ err, serverId: this.doc._id, step }, 'a migration wait ran out; the migration goes on');
    }
  }

  /** The server runs from its target: wait for it there, have the source remove its copy, release the source. */
  private async finish(started?: Promise<ServerReport>): Promise<WorkflowResult> {
    const source = this.workflow.sourceNodeId!;
    if (this.workflow.step === 'starting') {
      await this.tolerate(started ?? this.startedOn(this.doc.nodeId!), 'starting');
      const removed = this.removedFrom(source);
      await this.step('cleaning', { removeOnNodeId: source });
      this.ctx.desired.desiredStateChanged(source, [this.doc]);
      await this.tolerate(removed, 'cleaning');
    } else {
      const removed = this.removedFrom(source);
      this.ctx.desired.desiredStateChanged(source, [this.doc]);
      await this.tolerate(removed, 'cleaning');
    }
    await this.done();
    this.ctx.desired.desiredStateChanged(source, [this.doc]);
    return 'succeeded';
  }

  /**
   * Back to READY on the source with MIGRATION_FAILED. The stage is aborted (best effort: the
   * Agent drops it when its lease runs out anyway). When the target may have committed, the hold
   * is lifted first (the server runs again on its source at once) and the target is told to
   * remove its copy before the workflow ends.
   */
  private async rollback(cause: string, removeTarget: boolean): Promise<WorkflowResult> {
    const { step, targetNodeId } = this.workflow;
    const target = targetNodeId!;
    void this.sink?.abort();
    if (removeTarget) {
      const removed = this.removedFrom(target);
      if (step !== 'rolling back') await this.step('rolling back', { hold: false, removeOnNodeId: target });
      this.ctx.desired.desiredStateChanged(target, [this.doc]);
      await this.tolerate(removed, 'rolling back');
    }
    const message = `Migration to Node ${this.name(target)} failed while ${step}: ${cause}. The server stays on Node ${this.name(this.doc.nodeId!)}.`;
    await this.aborted('MIGRATION_FAILED', message);
    if (removeTarget) this.ctx.desired.desiredStateChanged(target, [this.doc]);
    return 'rolled_back';
  }
}
