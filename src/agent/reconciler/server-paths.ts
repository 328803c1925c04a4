import { dirname, join } from 'node:path';

/**
 * Where a server lives on the Node: `<data>/servers/<id>/root` is its directory (the game's cwd and
 * the root the files API sees), `software/` beside it holds the installed software and its marker
 * (the Agent's: bound read-only into the game's view at `root/.cairn`), `state/` belongs to the
 * supervisor, and `applied.json` records the spec the running process was started from. Nothing
 * but `root/` is the game's: what the Agent keeps for itself stays where the game cannot rename it.
 */
export const serverHome = (dataDir: string, serverId: string) => join(dataDir, 'servers', serverId);
export const serverRoot = (dataDir: string, serverId: string) => join(serverHome(dataDir, serverId), 'root');
/** The installed software of the server whose root is `root`. */
export const softwareBeside = (root: string) => join(dirname(root), 'software');
/** Where the game's view binds the software, and where its templates find it (`{cairnDir}`). */
export const softwareMountPoint = (root: string) => join(root, '.cairn');
export const appliedFile = (dataDir: string, serverId: string) => join(serverHome(dataDir, serverId), 'applied.json');
export const downloadCache = (dataDir: string) => join(dataDir, 'cache', 'downloads');
export const pluginCache = (dataDir: string) => join(dataDir, 'cache', 'plugins');
