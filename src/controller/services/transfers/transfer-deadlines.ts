import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import type { Response } from '../../../shared/link/messages.js';

/**
 * How long the Controller waits on a Node during a transfer. Opening a snapshot hashes the whole
 * world (and may wait for the game to save), so it gets minutes; a lease outlives the longest
 * gap between two requests of one transfer.
 */
export const transferDeadlines = {
  openMs: 10 * 60_000,
  commitMs: 10 * 60_000,
  leaseMs: 5 * 60_000,
} as const;

/** The manifest entries one (part of an) answer carries. */
export function manifestPart(r: Response): ManifestEntry[] {
  if (r.payload !== 'snapshotManifest') return [];
  return r.snapshotManifest.entries.map((e) => ({ ...e, type: e.type === 'DIRECTORY' ? 'DIRECTORY' : 'FILE', size: Number(e.size) }));
}
