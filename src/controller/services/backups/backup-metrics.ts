import { Counter, type Registry } from 'prom-client';
import type { BackupRunner } from './backup-runner.js';

/** `cairn_backups_total{trigger,result}`: every finished backup, by what started it and how it ended. */
export function registerBackupMetrics(registry: Registry, runner: BackupRunner): void {
  const finished = new Counter({
    name: 'cairn_backups_total',
    help: 'Finished backups by trigger (MANUAL, SCHEDULED, PRE_RESTORE, PRE_MIGRATE) and result (SUCCEEDED, FAILED).',
    labelNames: ['trigger', 'result'] as const,
    registers: [registry],
  });
  runner.onFinished((backup) => finished.inc({ trigger: backup.trigger, result: backup.state }));
}
