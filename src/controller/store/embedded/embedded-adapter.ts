import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FsBlobStore } from '../../../shared/backup/fs-blob-store.js';
import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { Clock } from '../../../shared/clock.js';
import type { Collection, IndexSpec } from '../collection.js';
import type { StoreAdapter } from '../repositories.js';
import type { AuditLog } from '../records.js';
import { importLegacyAuditFile } from './audit/legacy-import.js';
import { AuditSegmentLog } from './audit/segment-log.js';
import { NedbCollection } from './nedb-collection.js';
import type { StoreRepair } from './torn-tail.js';
import { WriteHealth } from './write-health.js';
import { AuditReserve } from './audit-reserve.js';

/**
 * The default store: one nedb file per collection under `<data-dir>/store`, the audit log's segments in `<data-dir>/store/audit`;
 * backups kept by the Controller under `<data-dir>/backups/<destinationId>`.
 */
export class EmbeddedAdapter implements StoreAdapter {
  readonly kind = 'embedded' as const;
  private readonly collections: NedbCollection<{ _id: string }>[] = [];
  private log?: Promise<AuditLog>;
  private readonly health: WriteHealth;
  readonly auditRoom: AuditReserve;

  private constructor(private readonly dataDir: string, private readonly dir: string, private readonly clock: Clock, private readonly onRepair: (repair: StoreRepair) => void) {
    this.health = new WriteHealth(dir);
    this.auditRoom = new AuditReserve(join(dir, 'audit-reserve'));
  }

  /** `onRepair` hears of every file cut back or line skipped at load, so the operator is told what was lost. */
  static async open(dataDir: string, clock: Clock, onRepair: (repair: StoreRepair) => void = () => undefined): Promise<EmbeddedAdapter> {
    const dir = join(dataDir, 'store');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new EmbeddedAdapter(dataDir, dir, clock, onRepair);
  }

  async openCollection<T extends { _id: string }>(name: string, indexes: IndexSpec[]): Promise<Collection<T>> {
    const collection = await NedbCollection.open<T>(join(this.dir, `${name}.db`), indexes, this.onRepair, this.health.note);
    this.collections.push(collection);
    return collection;
  }

  /** One log per adapter: its ids are assigned in memory, so a second writer on the same files would repeat them. */
  openAuditLog(): Promise<AuditLog> {
    this.log ??= (async () => {
      const log = await AuditSegmentLog.open(join(this.dir, 'audit'), this.clock, this.onRepair, { onOutcome: this.health.note });
      await importLegacyAuditFile(join(this.dir, 'audit-events.jsonl'), log, this.onRepair);
      return log;
    })();
    return this.log;
  }

  openBlobStore(destinationId: string, teamId?: string): BlobStore {
    for (const id of [destinationId, teamId ?? 'root']) if (!/^[A-Za-z0-9-]{1,100}$/.test(id)) throw new Error(`not an id: ${id.slice(0, 80)}`);
    const root = join(this.dataDir, 'backups', destinationId);
    return new FsBlobStore(teamId ? join(root, 'teams', teamId) : root);
  }

  /** The data dir is the store: jars kept there need no second copy. */
  openSharedArtifacts(): undefined {
    return undefined;
  }

  /**
   * Files on local disk: reachable as long as the directory is, writable unless the last append
   * failed (and no probe since succeeded) or the audit events' room cannot be set aside (audited
   * changes are refused without it).
   */
  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await this.health.check();
    await this.auditRoom.hold();
  }

  /** One process holds the embedded store: its clock is the store's. */
  serverTime(): Promise<number> {
    return Promise.resolve(this.clock.now().getTime());
  }

  async close(): Promise<void> {
    // Compacting waits for every queued write, and leaves each file one line per document for the next load.
    for (const c of this.collections) {
      c.stopCompaction();
      await c.compact();
    }
    const log = await this.log?.catch(() => undefined);
    await log?.close();
  }
}
