import { readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { readProcStat } from '../../shared/proc-stat.js';
import { isRuntimeError } from './errors.js';
import { readPidFile, removeFiles, stateFiles } from './state-dir.js';

/** The shim named by `shim.pid` when it is alive and still serves this state dir (its cwd): a pid alone may name a stranger. */
async function shimOf(stateDir: string): Promise<number | null> {
  const pid = await readPidFile(join(stateDir, stateFiles.shimPid));
  if (pid === null) return null;
  try {
    return (await readlink(`/proc/${pid}/cwd`)) === (await realpath(stateDir)) ? pid : null;
  } catch {
    return null;
  }
}

/** The game named by `game.pid` when it is that shim's child: the group it leads is the game's. */
async function gameOf(stateDir: string, shimPid: number): Promise<number | null> {
  const pid = await readPidFile(join(stateDir, stateFiles.gamePid));
  if (pid === null) return null;
  return (await readProcStat(pid))?.parentPid === shimPid ? pid : null;
}

async function logTail(stateDir: string): Promise<string> {
  return (await readFile(join(stateDir, stateFiles.log), 'utf8').catch(() => '')).slice(-600).trim();
}

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
  const shimPid = await shimOf(stateDir);
  const gamePid = shimPid === null ? null : await gameOf(stateDir, shimPid);
  logger.warn({ serverId, shimPid, gamePid, shimLog: await logTail(stateDir) }, 'the server\'s shim does not answer; ending it and its game before starting again');
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
