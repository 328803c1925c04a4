import { Counter, type Registry } from 'prom-client';
import { copyPaths } from '../schemas/servers.js';
import type { CopyTally } from '../services/transfers/copy-tally.js';

/**
 * `cairn_migration_copy_bytes_total{path}`: the bytes migrations copied Agent to Agent (`direct`)
 * and through the Controller (`relayed`); both series exist from the start at 0.
 */
export function createMigrationCopyMetrics(registry: Registry, tally: CopyTally): void {
  const copied = new Counter({
    name: 'cairn_migration_copy_bytes_total',
    help: 'Bytes of server files migrations copied, by path: direct (Agent to Agent) or relayed (through the Controller).',
    labelNames: ['path'] as const,
    registers: [registry],
  });
  for (const path of copyPaths) copied.inc({ path: path.toLowerCase() }, 0);
  tally.subscribe((path, bytes) => copied.inc({ path: path.toLowerCase() }, bytes));
}
