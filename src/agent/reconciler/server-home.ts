import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, tightenTree } from '../../shared/private-dir.js';
import { isValidServerId } from '../runtime/state-dir.js';
import { downloadCache, pluginCache, serverHome } from './server-paths.js';

/** What of a server's home is the game's: its root (its uid's) and the software it runs from (readable by it). */
const gameEntries = new Set(['root', 'software']);

const serversDir = (dataDir: string) => join(dataDir, 'servers');

/**
 * `<data>/servers/<id>` at 0700 before anything goes in, as the Agent's alone: a boxed game reaches
 * its root through its view's bind, never by walking this path, and an unboxed one runs as the Agent.
 */
export async function makeServerHome(dataDir: string, serverId: string): Promise<void> {
  await ensurePrivateDir(serversDir(dataDir));
  await ensurePrivateDir(serverHome(dataDir, serverId));
}

/**
 * Narrows to 0600 and 0700 what an earlier version wrote under its umask (0644 records, 0755
 * directories): the caches, the servers' directory and each server's home but the game's part.
 * Answers how many entries it changed.
 */
export async function narrowAgentFiles(dataDir: string): Promise<number> {
  let changed = 0;
  for (const dir of [serversDir(dataDir), downloadCache(dataDir), pluginCache(dataDir)]) {
    if ((await ensurePrivateDir(dir)) !== undefined) changed += 1;
  }
  changed += await tightenTree(join(dataDir, 'cache'));
  for (const serverId of (await readdir(serversDir(dataDir))).filter(isValidServerId)) {
    const home = serverHome(dataDir, serverId);
    if ((await ensurePrivateDir(home)) !== undefined) changed += 1;
    for (const name of await readdir(home)) if (!gameEntries.has(name)) changed += await tightenTree(join(home, name));
  }
  return changed;
}
