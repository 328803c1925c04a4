import { join } from 'node:path';

/**
 * Where a server lives on the Node: `<data>/servers/<id>/root` is its directory (the game's cwd and
 * the root the files API sees, `.cairn` inside it), `state/` beside it belongs to the supervisor,
 * and `applied.json` records the spec the running process was started from.
 */
export const serverHome = (dataDir: string, serverId: string) => join(dataDir, 'servers', serverId);
export const serverRoot = (dataDir: string, serverId: string) => join(serverHome(dataDir, serverId), 'root');
export const appliedFile = (dataDir: string, serverId: string) => join(serverHome(dataDir, serverId), 'applied.json');
export const downloadCache = (dataDir: string) => join(dataDir, 'cache', 'downloads');
export const pluginCache = (dataDir: string) => join(dataDir, 'cache', 'plugins');
