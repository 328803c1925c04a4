import { setTimeout as delay } from 'node:timers/promises';
import type { ServerDoc } from '../../store/records.js';
import type { HolderHandoff } from '../leases/holder-handoff.js';

export const workflowRunPath = '/internal/v1/workflow-run';

/** What a Controller asks of the one driving a server's Node: run the workflow its record names. */
export interface HandedOffRun {
  serverId: string;
}

/** How often a Controller that handed a run off reads whether it has ended (a drain waits for each move). */
const endPollMs = 1_000;

/**
 * A workflow is its server's Node's holder's work: it asks that Node's Agent, and the holder
 * settles what a run left when it gains the Node. So a workflow begun through a Controller that
 * does not drive the Node is handed to the one that does (HolderHandoff), which runs it as if
 * begun there; when none takes it, it runs where it was begun.
 */
export class WorkflowHandoff {
  constructor(
    private readonly holder: HolderHandoff,
    private readonly read: (serverId: string) => Promise<ServerDoc | null>,
  ) {}

  drives(nodeId: string): boolean {
    return this.holder.drives(nodeId);
  }

  /** Whether the holder of the server's Node took its run. */
  handOff(doc: ServerDoc): Promise<boolean> {
    const run: HandedOffRun = { serverId: doc._id };
    return this.holder.handOff(doc.nodeId, { path: workflowRunPath, purpose: 'workflow-run', body: run, what: 'workflow' });
  }

  /** Settles once the record names no workflow begun at `startedAt` any more, or `signal` aborts. */
  async ended(serverId: string, startedAt: string | undefined, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const doc = await this.read(serverId).catch(() => 'unread' as const);
      if (doc !== 'unread' && doc?.workflow?.startedAt !== startedAt) return;
      await delay(endPollMs, undefined, { signal }).catch(() => undefined);
    }
  }
}
