import { mkdir, stat } from 'node:fs/promises';
import { ChecksumMismatchError, collectGarbage } from '../../shared/backup/blob-store.js';
import { backupTree } from '../../shared/backup/tree-backup.js';
import type { BackupResult } from '../../shared/link/generated/cairn/agent/v1/BackupResult.js';
import { AgentError } from '../errors.js';
import { holdIfAsked, serverOf, type BackupHost } from './backup-host.js';
import type { HashCaches } from './hash-caches.js';
import { checkId } from './leases.js';
import type { LocalStores } from './local-stores.js';
import type { Quiescer } from './quiesce.js';

export interface LocalBackupDeps {
  host: BackupHost;
  quiescer: Quiescer;
  caches: HashCaches;
  stores: LocalStores;
  now: () => Date;
}

export interface LocalBackupInput {
  serverId: string;
  backupId: string;
  destinationPath: string;
  quiesce: boolean;
}

/** Backups into stores on this Node: taken like a snapshot (held still when asked), pruned by manifest. */
export class LocalBackups {
  constructor(private readonly deps: LocalBackupDeps) {}

  async backup(input: LocalBackupInput, signal: AbortSignal): Promise<BackupResult> {
    const backupId = checkId('backup_id', input.backupId);
    const server = serverOf(this.deps.host, input.serverId);
    return this.deps.stores.use(input.destinationPath, async (store, path) => {
      if (!(await stat(server.root).then((s) => s.isDirectory(), () => false))) throw new AgentError('NOT_FOUND', 'The server has no files on this Node yet.');
      await mkdir(path, { recursive: true });
      const release = await holdIfAsked(this.deps.quiescer, input.serverId, server, input.quiesce);
      try {
        const result = await this.deps.caches.scan(input.serverId, (cache) => backupTree(server.root, store, backupId, this.deps.now().toISOString(), cache, signal));
        return { sizeBytes: result.sizeBytes, storedBytes: result.storedBytes, fileCount: result.fileCount };
      } catch (e) {
        if (e instanceof ChecksumMismatchError) throw new AgentError('CHECKSUM_MISMATCH', 'A file changed while it was copied; back up again (quiesced, or with the server stopped).');
        throw e;
      } finally {
        await release?.();
      }
    });
  }

  /** Deletes the backups' manifests, then every blob no remaining manifest names. */
  async prune(input: { destinationPath: string; backupIds: string[] }): Promise<void> {
    const ids = input.backupIds.map((id) => checkId('backup_ids', id));
    return this.deps.stores.use(input.destinationPath, async (store, path) => {
      if (!(await stat(path).then((s) => s.isDirectory(), () => false))) return;
      for (const id of ids) await store.deleteManifest(id);
      await collectGarbage(store);
    });
  }
}
