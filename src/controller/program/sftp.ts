import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { SftpServer } from '../http/sftp/sftp-server.js';
import { loadSshHostKey } from '../security/ssh-host-key.js';
import type { Services } from '../services/index.js';
import type { ControllerConfig } from './config.js';
import { refusePortInUse } from './port-in-use.js';

/** Where the SFTP host key lives: clients pin it, so it stays in the data dir across restarts (mode 0600). */
export const sftpHostKeyFile = (dataDir: string) => join(dataDir, 'sftp-host-key');

/** Starts the SFTP server unless `--sftp-port off`, and tells the files capability where it listens. */
export async function startSftp(config: ControllerConfig, services: Services, logger: Logger): Promise<{ server: SftpServer; port: number } | undefined> {
  if (config.sftpPort === undefined) return undefined;
  const hostKey = await loadSshHostKey(sftpHostKeyFile(config.dataDir));
  const server = new SftpServer({ host: config.host, port: config.sftpPort, hostKey, access: services.sftp, keys: services.sshKeys, files: services.files, audit: services.audit, logger });
  const port = await server.listen().catch(refusePortInUse({ host: config.host, port: config.sftpPort, what: 'the SFTP server', flag: '--sftp-port' }));
  services.sftp.listen({ host: config.host, port, hostKeyFingerprint: hostKey.fingerprint });
  logger.info({ event: 'sftp_listening', host: config.host, port, hostKeyFingerprint: hostKey.fingerprint }, `SFTP listening; host key ${hostKey.fingerprint}`);
  return { server, port };
}
