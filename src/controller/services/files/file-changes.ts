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
