import { DomainError } from '../../core/errors.js';
import type { ServerDoc } from '../../store/records.js';

/**
 * Throws unless the server's install may be retried (POST /servers/{id}/reinstall): only a FAILED
 * server with nothing installed may (a failed workflow's files are not reinstalled over); a busy one gets `busy()`.
 */
export function requireReinstallable(doc: Pick<ServerDoc, 'phase' | 'observed'>, busy: () => DomainError): void {
  if (doc.phase === 'READY') throw new DomainError('invalid_transition', 'The server is READY: only a failed install is retried.');
  if (doc.phase !== 'FAILED') throw busy();
  if (doc.observed.installed) throw new DomainError('invalid_transition', 'The server\'s software is installed: only a failed install is retried.');
}
