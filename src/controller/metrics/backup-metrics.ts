import { Counter, type Registry } from 'prom-client';
import { backupTriggers } from '../schemas/backups.js';
import type { BackupRunner } from '../services/backups/backup-runner.js';

/** How a backup can end, as `cairn_backups_total`'s result label says it. */
const finalStates = ['SUCCEEDED', 'FAILED'] as const;

/** `cairn_backups_total{trigger,result}`: every finished backup, by what started it and how it ended; every series exists from the start at 0. */
export function registerBackupMetrics(registry: Registry, runner: BackupRunner): void {
  const finished = new Counter({
    name: 'cairn_backups_total',
    help: `Finished backups by trigger (${backupTriggers.join(', ')}) and result (${finalStates.join(', ')}).`,
    labelNames: ['trigger', 'result'] as const,
    registers: [registry],
  });
  for (const trigger of backupTriggers) for (const result of finalStates) finished.inc({ trigger, result }, 0);
  runner.onFinished((backup) => finished.inc({ trigger: backup.trigger, result: backup.state }));
}
