import { Counter, type Registry } from 'prom-client';
import type { SftpAccess, SftpLoginFailure } from '../services/files/sftp-access.js';

const reasons: SftpLoginFailure[] = ['bad_username', 'bad_credentials', 'throttled', 'no_server', 'too_many_connections'];

/** `cairn_sftp_login_failures_total{reason}`: refused SFTP sign-ins, counted rather than each audited (a password guesser would flood the log). */
export function registerSftpMetrics(registry: Registry, access: Pick<SftpAccess, 'onLoginFailure'>): void {
  const failures = new Counter({ name: 'cairn_sftp_login_failures_total', help: `Refused SFTP sign-ins, by reason (${reasons.join(', ')}).`, labelNames: ['reason'] as const, registers: [registry] });
  for (const reason of reasons) failures.inc({ reason }, 0);
  access.onLoginFailure((reason) => failures.inc({ reason }));
}
