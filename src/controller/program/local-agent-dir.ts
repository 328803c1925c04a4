import { lstat, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../../shared/logger.js';

/**
 * The local Agent's data dir: beside the Controller's, never inside it (`./data` →
 * `./data-local-agent`). Inside, the Agent's games (third-party code) would sit under the store's
 * directory, and the Controller's data dir could not be closed to every uid but its own.
 */
export const localAgentDir = (controllerDataDir: string) =>
  join(dirname(controllerDataDir), `${basename(controllerDataDir)}-local-agent`);

/** Where versions before the move kept it. */
export const formerLocalAgentDir = (controllerDataDir: string) => join(controllerDataDir, 'local-agent');

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Moves the local Agent's data dir of an earlier version to where it lives now, before the Agent
 * starts, so it keeps its credential and its servers. A rename keeps every inode: games still
 * running from there keep their working directories and open files. When both exist the new one
 * is the one in use, and the old one is left for an operator to look at.
 */
export async function moveFormerLocalAgentDir(controllerDataDir: string, logger: Logger): Promise<void> {
  const former = formerLocalAgentDir(controllerDataDir);
  const current = localAgentDir(controllerDataDir);
  if (!(await exists(former))) return;
  if (await exists(current)) {
    logger.warn({ event: 'local_agent_dir_conflict', former, current }, `${former} is a local Agent data dir of an earlier version; ${current} is used, and ${former} is left as it is`);
    return;
  }
  await rename(former, current);
  logger.info({ event: 'local_agent_dir_moved', from: former, to: current }, `moved the local Agent's data dir from ${former} to ${current}`);
}
