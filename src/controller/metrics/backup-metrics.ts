import { Counter, type Registry } from 'prom-client';
import { backupTriggers } from '../schemas/backups.js';
import type { Listeners } from '../../shared/listeners.js';
import type { BackupRunner } from '../services/backups/backup-runner.js';
import { readPaths, type ReadPath } from '../services/transfers/snapshot-reads.js';

/** How a backup can end, as `cairn_backups_total`'s result label says it. */
const finalStates = ['SUCCEEDED', 'FAILED'] as const;

/**
 * `cairn_backups_total{trigger,result}`: every finished backup, by what started it and how it
 * ended; `cairn_backup_read_bytes_total{path}`: the bytes backups read from Agents into the
 * Controller's store, straight from the Agent (`direct`) or over its link (`link`). Every series
 * exists from the start at 0.
 */
export function registerBackupMetrics(registry: Registry, runner: BackupRunner, reads: Listeners<[ReadPath, number]>): void {
  const finished = new Counter({
    name: 'cairn_backups_total',
    help: `Finished backups by trigger (${backupTriggers.join(', ')}) and result (${finalStates.join(', ')}).`,
    labelNames: ['trigger', 'result'] as const,
    registers: [registry],
  });
  for (const trigger of backupTriggers) for (const result of finalStates) finished.inc({ trigger, result }, 0);
  runner.onFinished((backup) => finished.inc({ trigger: backup.trigger, result: backup.state }));
  const read = new Counter({
    name: 'cairn_backup_read_bytes_total',
    help: 'Bytes backups read from Agents into the Controller\'s store, by path: direct (from the Agent\'s snapshot server) or link (over its gRPC link).',
    labelNames: ['path'] as const,
    registers: [registry],
  });
  for (const path of readPaths) read.inc({ path }, 0);
  reads.add((path, bytes) => read.inc({ path }, bytes));
}
