import { ChecksumMismatchError } from '../../../shared/backup/blob-store.js';
import { isDomainError } from '../../core/errors.js';
import { isAgentRequestError, isNodeUnavailable } from '../../link/errors.js';

/**
 * What went wrong, in one sentence an operator can act on (a backup's `error`, a restore's
 * condition message): the Agent's own code and message, a Node gone or past its deadline, a
 * checksum that did not match. Never file content or secrets.
 */
export function failureText(error: unknown): string {
  return describe(error).replace(/[.\s]+$/, '');
}

function describe(error: unknown): string {
  if (isAgentRequestError(error)) return `the Agent refused (${error.code}): ${error.message}`;
  if (isNodeUnavailable(error)) return error.reason === 'deadline' ? 'the Node did not answer in time' : 'the Node is not connected';
  if (error instanceof ChecksumMismatchError) return `a file's content did not match its checksum (${error.message})`;
  if (isDomainError(error)) return error.detail ?? error.code;
  return error instanceof Error ? error.message : String(error);
}
