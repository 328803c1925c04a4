import type { ServerEvent } from '../../actors/server-machine.js';
import type { ServerSoftware, WorkflowFacts, WorkflowFailure } from '../../domain/server-spec.js';
import type { ServerDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import { Stopped } from './step-failure.js';
import type { WorkflowResult } from './workflow-outcomes.js';

/** One server's workflow as the runner drives it: begun now, or found in the store at start. */
export interface WorkflowRun {
  /** A workflow just begun: every step, or back. */
  forward(): Promise<WorkflowResult>;
  /** A workflow the store holds after a restart: finished or rolled back from the step it had reached. */
  resume(): Promise<WorkflowResult>;
}

/** What every run writes its record with. */
export interface StepContext {
  deps: ServiceDeps;
  servers: Pick<ServerAggregate, 'apply'>;
}

/**
 * The record of the step a run reached: each step is written (WORKFLOW_STEP) before it runs, so a
 * Controller that restarts knows where it was, and its end is WORKFLOW_DONE or WORKFLOW_ABORTED
 * (the server READY again, the condition saying why). Nothing is written once the Controller
 * stops: what the store holds then is what the next start resumes from.
 */
export abstract class WorkflowSteps implements WorkflowRun {
  constructor(private readonly record: StepContext, protected doc: ServerDoc, protected readonly stopping: AbortSignal) {}

  abstract forward(): Promise<WorkflowResult>;
  abstract resume(): Promise<WorkflowResult>;

  /** The next step, its facts, and (a restore, an update) the software the server is desired with from now on. */
  protected async step(step: string, facts?: WorkflowFacts, software?: ServerSoftware): Promise<void> {
    await this.settle({ type: 'WORKFLOW_STEP', at: this.now(), step, ...(facts ? { facts } : {}), ...(software ? { software } : {}) });
  }

  protected async done(): Promise<void> {
    await this.settle({ type: 'WORKFLOW_DONE', at: this.now() });
  }

  /** Rolled back: READY as before, the failure shown until acknowledged. */
  protected async aborted(reason: WorkflowFailure['reason'], message: string): Promise<void> {
    await this.settle({ type: 'WORKFLOW_ABORTED', at: this.now(), reason, message });
  }

  /** The event written, and with it what the server is observed as and where it is placed (a migration's switch). */
  protected async settle(event: ServerEvent, observed?: ServerDoc['observed'], placement?: Pick<Partial<ServerDoc>, 'gamePort' | 'nodeId'>): Promise<void> {
    this.endIfStopping();
    this.doc = await this.record.servers.apply(this.doc, event, observed, placement);
  }

  /** Called where a failure was met: a Controller stopping cut it off, so the run ends where it is rather than roll back. */
  protected endIfStopping(): void {
    if (this.stopping.aborted) throw new Stopped();
  }

  protected now(): string {
    return nowIso(this.record.deps);
  }
}
