import { DomainError } from '../core/errors.js';
import type { ServerDesired, ServerObserved } from './server-spec.js';

/** What the disk rules read of a server: its limit and what its Agent last measured. */
type DiskUse = { desired: Pick<ServerDesired, 'resources'>; observed: Pick<ServerObserved, 'usage'> };

/**
 * Refuses a plugin change that would take the server's files past its disk limit
 * (resources.diskBytes), by what its Agent last measured them to hold: jars are put in place by
 * the Agent at the next start, so this is the moment the operator can still be told.
 */
export function requireDiskRoom(server: DiskUse, addedBytes: number): void {
  const limit = server.desired.resources.diskBytes;
  if (!limit || addedBytes <= 0) return;
  const used = server.observed.usage.diskBytes;
  if (used + addedBytes <= limit) return;
  throw new DomainError('insufficient_storage',
    `The server's files hold ${used} bytes of its disk limit of ${limit} (resources.diskBytes); the plugin needs ${addedBytes} more. Free some space or raise the limit.`);
}

/**
 * Refuses files that would replace the server's whole tree (a restore) when they alone pass its
 * disk limit: refused before anything stops, rather than landing and leaving the server past it.
 */
export function requireRoomForFiles(server: DiskUse, totalBytes: number, what: string): void {
  const limit = server.desired.resources.diskBytes;
  if (!limit || totalBytes <= limit) return;
  throw new DomainError('insufficient_storage',
    `${what} holds ${totalBytes} bytes, more than the server's disk limit of ${limit} (resources.diskBytes). Raise the limit first.`);
}
