import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DesiredPlugin } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
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
      await mkdir(this.cacheDir, { recursive: true });
      await this.fetcher.fetch(plugin.sha256, plugin.sizeBytes, path);
      if ((await sha256Of(path)) !== plugin.sha256) {
        await rm(path, { force: true });
        throw new PluginPlacementError(`${plugin.pluginId}: the fetched jar does not match sha256 ${plugin.sha256}`);
      }
      return path;
    });
  }

  async place(plugins: readonly DesiredPlugin[], serverDir: string): Promise<void> {
    for (const p of plugins) {
      if (!safeFileName(p.fileName)) throw new PluginPlacementError(`${p.pluginId}: unsafe file name ${JSON.stringify(p.fileName)}`);
    }
    const dir = join(serverDir, 'plugins');
    await mkdir(dir, { recursive: true });
    const manifestPath = join(dir, managedManifest);
    const previous = await readFile(manifestPath, 'utf8').then((t) => (JSON.parse(t) as Manifest).files, (): Manifest['files'] => ({}));
    // Fetch everything first: a missing jar fails the start before plugins/ is changed at all.
    const sources = new Map<string, string>();
    for (const p of plugins) sources.set(p.fileName, await this.cached(p));
    const wanted = new Map(plugins.map((p) => [p.fileName, p.sha256]));
    for (const name of Object.keys(previous)) {
      if (!wanted.has(name)) await rm(join(dir, basename(name)), { force: true });
    }
    for (const [name, sha256] of wanted) {
      const target = join(dir, name);
      if (previous[name] === sha256 && (await sha256Of(target).catch(() => undefined)) === sha256) continue;
      const temp = `${target}.cairn-tmp`;
      await copyFile(sources.get(name)!, temp);
      await rename(temp, target);
    }
    const manifest: Manifest = { files: Object.fromEntries(wanted) };
    await writeFile(`${manifestPath}.tmp`, JSON.stringify(manifest, null, 2));
    await rename(`${manifestPath}.tmp`, manifestPath);
    if (plugins.length > 0 || Object.keys(previous).length > 0) {
      this.logger.info({ event: 'plugins_placed', serverDir, placed: [...wanted.keys()], removed: Object.keys(previous).filter((n) => !wanted.has(n)) }, 'plugins put in place');
    }
  }
}
