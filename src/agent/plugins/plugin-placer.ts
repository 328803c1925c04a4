import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rm, unlink, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DesiredPlugin } from '../../shared/link/messages.js';
import type { PluginFolder } from '../../shared/plugin-folder.js';
import type { Logger } from '../../shared/logger.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { at, errnoOf, fileReadFlags, makeDirectoryIn, openDirectory, replaceFileIn, withPlace } from '../files/beneath.js';
import type { ArtifactFetcher } from './artifact-fetcher.js';

/** A jar the Agent will not put in place (bad name, wrong checksum); the server's start fails with it. */
export class PluginPlacementError extends Error {
  override name = 'PluginPlacementError';
}

/** The jars Cairn put in `plugins/` last time, so those (and only those) can be removed later. */
export const managedManifest = '.cairn-managed.json';

interface Manifest {
  /** file name → sha256 */
  files: Record<string, string>;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** The sha256 of a regular file in `dir` (a symlink or FIFO the game put there is not one); undefined when there is none. */
async function sha256In(dir: FileHandle, name: string): Promise<string | undefined> {
  const handle = await open(at(dir, name), fileReadFlags).catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const hash = createHash('sha256');
    await pipeline(handle.createReadStream({ autoClose: false }), hash);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

async function readManifest(dir: FileHandle): Promise<Manifest['files']> {
  const handle = await open(at(dir, managedManifest), fileReadFlags).catch(() => undefined);
  if (!handle) return {};
  try {
    if (!(await handle.stat()).isFile()) return {};
    return (JSON.parse(await handle.readFile('utf8')) as Manifest).files;
  } catch {
    return {};
  } finally {
    await handle.close();
  }
}

/**
 * The server's `plugins/` directory, held open (made, owned by `owner`, when missing). It is
 * reached by the files API's walk: a symlink there is followed only while it stays inside the
 * server's root, and one leading out is refused rather than replaced. The game may have swapped
 * it in, and the root Agent writing through it could put files anywhere on the host; replacing
 * it would silently drop a layout an operator may have chosen, so the start fails and says why.
 */
async function openPluginsDir(serverDir: string, folder: PluginFolder, owner: GameIdentity | null | undefined): Promise<FileHandle> {
  await mkdir(serverDir, { recursive: true });
  try {
    return await withPlace(serverDir, folder, 'read', async (place) => {
      if (place.name) {
        await makeDirectoryIn(place.dir, place.name, owner).catch((e: unknown) => {
          if (errnoOf(e) !== 'EEXIST') throw e;
        });
      }
      return openDirectory(place);
    });
  } catch (e) {
    if (e instanceof AgentError) throw new PluginPlacementError(`${folder}/ cannot take jars: ${e.message}`);
    throw e;
  }
}

const safeFileName = (name: string) => basename(name) === name && /^[A-Za-z0-9._-]+\.jar$/.test(name) && !name.startsWith('.');

/**
 * Puts a server's installed plugins in `<server>/plugins/` before each start. Jars come from the
 * Node's cache by sha256 (fetched from the Controller when missing) and are checked against their
 * sha256 before every use. Jars an operator placed by hand are never touched: only the files
 * listed in `plugins/.cairn-managed.json` are Cairn's to replace or remove.
 */
export class PluginPlacer {
  private readonly fetches = new KeyedMutex();

  constructor(private readonly cacheDir: string, private readonly fetcher: Pick<ArtifactFetcher, 'fetch'>, private readonly logger: Logger) {}

  /** The verified cached jar of `plugin`, fetched first when the cache has none (or a corrupt one). */
  private async cached(plugin: DesiredPlugin): Promise<string> {
    const path = join(this.cacheDir, `${plugin.sha256}.jar`);
    return this.fetches.run(plugin.sha256, async () => {
      const actual = await sha256Of(path).catch(() => undefined);
      if (actual === plugin.sha256) return path;
      if (actual !== undefined) {
        this.logger.warn({ event: 'plugin_cache_corrupt', sha256: plugin.sha256, actual }, 'a cached plugin jar does not match its checksum; fetching it again');
        await rm(path, { force: true });
      }
      await mkdir(this.cacheDir, { recursive: true, mode: 0o700 });
      await this.fetcher.fetch({ sha256: plugin.sha256, size: plugin.sizeBytes }, path);
      if ((await sha256Of(path)) !== plugin.sha256) {
        await rm(path, { force: true });
        throw new PluginPlacementError(`${plugin.pluginId}: the fetched jar does not match sha256 ${plugin.sha256}`);
      }
      return path;
    });
  }

  /**
   * Puts the jars in place; what Cairn creates there is owned by `owner` when games run as their own
   * user. A mod loader's server gets them in `mods/` instead (shared/plugin-folder.ts), with its own manifest.
   */
  async place(plugins: readonly DesiredPlugin[], serverDir: string, owner?: GameIdentity | null, folder: PluginFolder = 'plugins'): Promise<void> {
    for (const p of plugins) {
      if (!safeFileName(p.fileName)) throw new PluginPlacementError(`${p.pluginId}: unsafe file name ${JSON.stringify(p.fileName)}`);
    }
    // Fetch everything first: a missing jar fails the start before plugins/ is changed at all.
    const sources = new Map<string, string>();
    for (const p of plugins) sources.set(p.fileName, await this.cached(p));
    const dir = await openPluginsDir(serverDir, folder, owner);
    try {
      const previous = await readManifest(dir);
      const wanted = new Map(plugins.map((p) => [p.fileName, p.sha256]));
      // The manifest lies in the game's directory: only names Cairn could have written are removed.
      const removed = Object.keys(previous).filter((n) => !wanted.has(n) && safeFileName(n));
      for (const name of removed) {
        await unlink(at(dir, name)).catch((e: unknown) => {
          if (errnoOf(e) !== 'ENOENT') throw e;
        });
      }
      for (const [name, sha256] of wanted) {
        if (previous[name] === sha256 && (await sha256In(dir, name)) === sha256) continue;
        const bytes = await readFile(sources.get(name)!);
        await replaceFileIn(dir, name, 0o644, owner, (handle) => handle.writeFile(bytes));
      }
      const manifest: Manifest = { files: Object.fromEntries(wanted) };
      await replaceFileIn(dir, managedManifest, 0o644, owner, (handle) => handle.writeFile(JSON.stringify(manifest, null, 2)));
      if (plugins.length > 0 || removed.length > 0) {
        this.logger.info({ event: 'plugins_placed', serverDir, placed: [...wanted.keys()], removed }, 'plugins put in place');
      }
    } finally {
      await dir.close();
    }
  }
}
