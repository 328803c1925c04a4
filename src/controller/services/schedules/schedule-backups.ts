import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Caller } from '../../core/caller.js';
import type { BackupDoc, ServerDoc } from '../../store/records.js';
import type { AuditService } from '../audit/audit.js';
import { unbackable } from '../backups/backup-runner.js';
import type { BackupServices } from '../backups/index.js';
import type { ServiceDeps } from '../deps.js';
import type { Access } from '../identity/access.js';
import { TaskFailure, type RunWaits } from './run-waits.js';

/**
 * A schedule's backup task: a SCHEDULED backup marked with the schedule's id, queued in its
 * server's turn like any other, and `retain` applied to that schedule's backups alone.
 */
export class ScheduleBackups {
  private readonly retention = new KeyedMutex();

  constructor(private readonly deps: ServiceDeps, private readonly access: Access, private readonly audit: AuditService, private readonly backups: BackupServices) {}

  /** The new PENDING backup, when the editor may back the server up and it can be now. */
  async take(editor: Caller, server: ServerDoc, destinationId: string, scheduleId: string): Promise<BackupDoc> {
    await this.access.require(editor, server.teamId, 'backups.create', 'server', 'servers.read');
    const refusal = unbackable(server);
    if (refusal) throw new TaskFailure(`cannot back up now: ${refusal}`);
    const destination = await this.backups.destinations.get(destinationId);
    if (!destination) throw new TaskFailure(`the backup destination ${destinationId} is gone`);
    return this.backups.runner.create(server, destination, 'SCHEDULED', scheduleId);
  }

  /** Runs the backup after those of its server queued before it; its finished record. */
  async finished(backup: BackupDoc, waits: RunWaits): Promise<BackupDoc> {
    const done = await waits.until(this.backups.runner.enqueue(backup._id, backup.serverId));
    if (!done) throw new TaskFailure('the backup record is gone');
    return done;
  }

  /** Keeps the newest `retain` successful backups of the schedule; failed ones older than the newest success go too. */
  async retain(scheduleId: string, retain: number): Promise<void> {
    await this.retention.run(scheduleId, async () => {
      const finished = await this.deps.repos.backups.find({ scheduleId, trigger: 'SCHEDULED', state: { $in: ['SUCCEEDED', 'FAILED'] } }, { sort: { _id: -1 } });
      const succeeded = finished.filter((b) => b.state === 'SUCCEEDED');
      const newest = succeeded.at(0)?._id ?? '';
      const expired = [...succeeded.slice(retain), ...finished.filter((b) => b.state === 'FAILED' && b._id < newest)];
      if (expired.length === 0) return;
      await this.backups.removal.remove(expired);
      for (const b of expired) {
        await this.audit.recordSystem({
          actorKind: 'SYSTEM', action: 'backup.delete', targetKind: 'backup', targetId: b._id, outcome: 'SUCCESS',
          details: { serverId: b.serverId, scheduleId, reason: 'retention', retain },
        });
      }
    });
  }
}
