import type { Logger } from '../../../shared/logger.js';
import type { BackupDoc } from '../../store/records.js';
import type { Collection } from '../../store/collection.js';
import type { HolderHandoff } from '../leases/holder-handoff.js';
import type { BackupRunner } from './backup-runner.js';

export const backupRunPath = '/internal/v1/backup-run';

/** What a Controller asks of the one driving a backup's Node: run that PENDING backup. */
export interface HandedOffBackup {
  backupId: string;
}

/**
 * A backup asks its server's Node's Agent (the snapshot, the reads or uploads), so it is the work
 * of the Controller driving that Node, which also settles it if it dies. One asked through another
 * Controller (by hand, or by the holder of the backup schedules' job) is handed over; when nobody
 * takes it, it runs where it was asked and fails there as it would have (the Node not connected).
 */
export class BackupHandoff {
  constructor(
    private readonly runner: BackupRunner,
    private readonly backups: Pick<Collection<BackupDoc>, 'findById'>,
    private readonly logger: Logger,
    /** Absent on the embedded store: its one Controller drives every Node. */
    private readonly holder?: HolderHandoff,
  ) {}

  /** Runs a created backup in its server's turn, in the background: on the Controller driving its Node. */
  queue(doc: BackupDoc): void {
    const handed: HandedOffBackup = { backupId: doc._id };
    void (this.holder?.handOff(doc.nodeId, { path: backupRunPath, purpose: 'backup-run', body: handed, what: 'backup' }) ?? Promise.resolve(false))
      .then((taken) => (taken ? undefined : this.runner.enqueue(doc._id, doc.serverId)))
      .catch((err: unknown) => this.logger.error({ err, backupId: doc._id }, 'a backup could not be run'));
  }

  /**
   * A backup another Controller handed here: queued when this Controller drives its Node (once:
   * asked again while it is queued or after it began, it is taken already). False when this
   * Controller does not drive the Node, so the one that asked runs it.
   */
  async adopt(backupId: string): Promise<boolean> {
    const doc = await this.backups.findById(backupId);
    if (!doc?.nodeId || !this.holder?.drives(doc.nodeId)) return false;
    if (doc.state !== 'PENDING' || this.runner.queued(backupId)) return true;
    this.runner.enqueue(doc._id, doc.serverId).catch((err: unknown) => this.logger.error({ err, backupId }, 'a backup handed here could not be run'));
    return true;
  }
}
