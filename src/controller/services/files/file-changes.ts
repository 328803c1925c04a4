import { DeadlineError, withDeadline } from '../../../shared/deadline.js';
import { DomainError } from '../../core/errors.js';
import type { ServerDoc } from '../../store/records.js';

/**
 * Workflows that move or replace a server's files: a migration copies them to another Node, a
 * restore and a failed update put other files in their place, a delete removes them. A change
 * made meanwhile could be lost without a word, so none is taken until the server is READY again.
 */
const filesInMotion: ReadonlySet<ServerDoc['phase']> = new Set(['MIGRATING', 'RESTORING', 'UPDATING', 'DELETING']);

/** `phase_busy`, naming the workflow and its step, while the server's files are in motion. */
export function refuseWhileFilesInMotion(doc: ServerDoc): void {
  if (!filesInMotion.has(doc.phase)) return;
  const doing = doc.workflow ? ` (${doc.workflow.kind.toLowerCase()}: ${doc.workflow.step})` : '';
  throw new DomainError('phase_busy', `The server is ${doc.phase}${doing}: its files are being moved or replaced, so a change now could be lost. Try again when it is READY.`);
}

/**
 * File changes through the API under way, per server. One that passed the check above before a
 * migration began (an upload still streaming) is waited for before the migration's last copy.
 */
export class FileChangesUnderWay {
  private readonly counts = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  async run<T>(serverId: string, change: () => Promise<T>): Promise<T> {
    this.counts.set(serverId, (this.counts.get(serverId) ?? 0) + 1);
    try {
      return await change();
    } finally {
      const left = (this.counts.get(serverId) ?? 1) - 1;
      if (left > 0) this.counts.set(serverId, left);
      else {
        this.counts.delete(serverId);
        for (const wake of this.waiting.get(serverId) ?? []) wake();
        this.waiting.delete(serverId);
      }
    }
  }

  /** Resolves once no change of the server is under way. */
  settled(serverId: string): Promise<void> {
    if (!this.counts.has(serverId)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(serverId, [...(this.waiting.get(serverId) ?? []), resolve]));
  }
}

/** How long a workflow waits for the server's file changes under way before it moves or replaces the files. */
export const fileChangesWaitMs = 60_000;

/** Resolves once no change of the server is under way; past `ms`, throws saying one still was (the workflow fails with it). */
export async function fileChangesEnded(changes: Pick<FileChangesUnderWay, 'settled'>, serverId: string, ms = fileChangesWaitMs): Promise<void> {
  try {
    await withDeadline(changes.settled(serverId), ms, 'file changes');
  } catch (e) {
    if (e instanceof DeadlineError) throw new Error(`a file change through the API was still under way after ${Math.round(ms / 1000)} s`, { cause: e });
    throw e;
  }
}
