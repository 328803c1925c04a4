import { scanTree, type HashCache } from '../../shared/backup/scan.js';
import type { ManifestEntry } from '../../shared/backup/manifest.js';
import { AgentError } from '../errors.js';
import type { Reconciler, ServerOnNode } from '../reconciler/reconciler.js';
import { isValidServerId } from '../runtime/state-dir.js';
import { isDiskFull, noSpaceError } from './no-space.js';
import type { Quiescer, Release } from './quiesce.js';

/** What snapshots, local backups and stages need of the servers this Node has. */
export type BackupHost = Pick<Reconciler, 'serverOnNode' | 'replaceFiles'>;

export function checkServerId(serverId: string): string {
  if (!isValidServerId(serverId)) throw new AgentError('INVALID_REQUEST', 'server_id: not a valid server id.');
  return serverId;
}

/** The server, or NOT_FOUND when this Node does not have it. */
export function serverOf(host: BackupHost, serverId: string): ServerOnNode {
  const server = host.serverOnNode(checkServerId(serverId));
  if (!server) throw new AgentError('NOT_FOUND', 'This Node does not have that server.');
  return server;
}

/**
 * Holds the server still when asked, it runs and its template says how; otherwise it is copied as
 * it is. On a full disk the game could not save, so it is not asked to: NO_SPACE at once.
 */
export async function holdIfAsked(quiescer: Quiescer, serverId: string, server: ServerOnNode, quiesce: boolean): Promise<Release | undefined> {
  const spec = server.template.backup;
  if (!quiesce || !server.running || !spec) return undefined;
  if (await isDiskFull(server.root)) throw noSpaceError();
  return quiescer.hold(serverId, spec);
}

/** The server's files as a manifest (hashed unless `hash` is false); NOT_FOUND before it has any. */
export async function scanServer(root: string, cache: HashCache, hash = true): Promise<ManifestEntry[]> {
  try {
    return await scanTree(root, cache, { hash });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new AgentError('NOT_FOUND', 'The server has no files on this Node yet.');
    throw e;
  }
}
