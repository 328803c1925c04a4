import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { isRuntimeError } from './errors.js';
import { readPidFile, removeFiles, stateFiles } from './state-dir.js';

/**
 * A shim that holds the server's socket but never answers (seen in full test runs: one stuck before its game was
 * set) would make every later shim of the server leave as busy, and every start fail. It goes, with whatever game
 * it spawned (the game leads its own process group), so a fresh shim can take the socket. Any other adoption error stays the start's.
 */
export async function absentIfHung(
  error: unknown, serverId: string, stateDir: string, live: Map<string, { conn: { close(): void } }>, logger: Logger,
): Promise<{ state: 'absent' }> {
  if (!isRuntimeError(error, 'timeout')) throw error;
  live.get(serverId)?.conn.close();
  live.delete(serverId);
  const shimPid = await readPidFile(join(stateDir, stateFiles.shimPid));
  const gamePid = await readPidFile(join(stateDir, stateFiles.gamePid));
  logger.warn({ serverId, shimPid, gamePid }, 'the server\'s shim does not answer; ending it and its game before starting again');
  for (const target of [gamePid === null ? null : -gamePid, shimPid]) {
    if (target === null) continue;
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await removeFiles(stateDir, [stateFiles.socket]);
  return { state: 'absent' };
}
