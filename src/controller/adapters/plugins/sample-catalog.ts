import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CatalogFeed, DenyEntry, FeedPlugin } from '../../schemas/catalog-feed.js';
import { buildPluginJar } from './plugin-jar.js';

interface SampleVersion {
  version: string;
  gameVersions: string[];
  publishedAt: string;
  dependencies?: string[];
}

interface SamplePlugin {
  slug: string;
  name: string;
  /** The name the jar's plugin.yml declares (Bukkit names carry no spaces). */
  jarName: string;
  summary: string;
  license: string;
  downloads: number;
  platforms: string[];
  versions: SampleVersion[];
}

const mc = { all: ['1.20.6', '1.21.1', '1.21.4'], new: ['1.21.1', '1.21.4'], old: ['1.20.6'] };
const proxy = ['3.3.0', '3.4.0', '3.3.0-SNAPSHOT', '3.4.0-SNAPSHOT'];
const bukkit = ['paper', 'spigot', 'bukkit'];

/**
 * The sample catalog: a dozen plugins shaped like well-known ones, with a dependency chain
 * (EssentialsX Chat → EssentialsX → VaultAPI, WorldGuard → WorldEdit), a diamond
 * (QuestsPlus → Citizens and EssentialsX → VaultAPI), a plugin only for an older game version,
 * proxy plugins, and one denylisted version (CoreProtect 22.4). Its jars are built locally, so
 * Cairn installs plugins without the internet.
 */
const samplePlugins: SamplePlugin[] = [
  { slug: 'vaultapi', name: 'VaultAPI', jarName: 'Vault', summary: 'Economy, permission and chat API that other plugins build on.', license: 'LGPL-3.0', downloads: 2_400_000, platforms: bukkit,
    versions: [{ version: '1.7.1', gameVersions: mc.all, publishedAt: '2024-03-02T10:00:00Z' }] },
  { slug: 'luckperms', name: 'LuckPerms', jarName: 'LuckPerms', summary: 'A permissions plugin: groups, tracks, contexts and a web editor.', license: 'MIT', downloads: 5_100_000, platforms: [...bukkit, 'velocity'],
    versions: [
      { version: '5.4.131', gameVersions: [...mc.all, ...proxy], publishedAt: '2024-06-10T09:00:00Z' },
      { version: '5.4.141', gameVersions: [...mc.all, ...proxy], publishedAt: '2024-11-20T09:00:00Z' },
    ] },
  { slug: 'essentialsx', name: 'EssentialsX', jarName: 'Essentials', summary: 'Homes, warps, kits, economy commands and more essentials for survival servers.', license: 'GPL-3.0', downloads: 3_900_000, platforms: bukkit,
    versions: [
      { version: '2.20.1', gameVersions: mc.old, publishedAt: '2024-04-01T12:00:00Z', dependencies: ['sample:vaultapi'] },
      { version: '2.21.0', gameVersions: mc.all, publishedAt: '2024-12-01T12:00:00Z', dependencies: ['sample:vaultapi'] },
    ] },
  { slug: 'essentialsx-chat', name: 'EssentialsX Chat', jarName: 'EssentialsChat', summary: 'Chat formatting and local chat for EssentialsX.', license: 'GPL-3.0', downloads: 1_800_000, platforms: bukkit,
    versions: [{ version: '2.21.0', gameVersions: mc.all, publishedAt: '2024-12-01T12:05:00Z', dependencies: ['sample:essentialsx'] }] },
  { slug: 'worldedit', name: 'WorldEdit', jarName: 'WorldEdit', summary: 'An in-game map editor: select regions, copy, paste and shape terrain.', license: 'GPL-3.0', downloads: 4_700_000, platforms: bukkit,
    versions: [
      { version: '7.3.8', gameVersions: mc.all, publishedAt: '2024-10-05T08:00:00Z' },
      { version: '7.3.9', gameVersions: mc.new, publishedAt: '2024-12-15T08:00:00Z' },
    ] },
  { slug: 'worldguard', name: 'WorldGuard', jarName: 'WorldGuard', summary: 'Protect regions and set flags on them; builds on WorldEdit selections.', license: 'GPL-3.0', downloads: 3_300_000, platforms: bukkit,
    versions: [{ version: '7.0.12', gameVersions: mc.all, publishedAt: '2024-10-20T08:00:00Z', dependencies: ['sample:worldedit'] }] },
  { slug: 'citizens', name: 'Citizens', jarName: 'Citizens', summary: 'NPCs that talk, trade and walk paths.', license: 'OSL-3.0', downloads: 2_100_000, platforms: bukkit,
    versions: [{ version: '2.0.37', gameVersions: mc.all, publishedAt: '2024-11-02T16:00:00Z', dependencies: ['sample:vaultapi'] }] },
  { slug: 'questsplus', name: 'QuestsPlus', jarName: 'QuestsPlus', summary: 'Quests with NPC givers and money rewards.', license: 'MIT', downloads: 450_000, platforms: bukkit,
    versions: [{ version: '1.4.2', gameVersions: mc.all, publishedAt: '2024-11-28T14:00:00Z', dependencies: ['sample:citizens', 'sample:essentialsx'] }] },
  { slug: 'coreprotect', name: 'CoreProtect', jarName: 'CoreProtect', summary: 'Block logging and rollback to undo griefing.', license: 'Artistic-2.0', downloads: 2_900_000, platforms: bukkit,
    versions: [
      { version: '22.3', gameVersions: mc.all, publishedAt: '2024-05-01T07:00:00Z' },
      { version: '22.4', gameVersions: mc.all, publishedAt: '2024-09-01T07:00:00Z' },
    ] },
  { slug: 'dynmap', name: 'dynmap', jarName: 'dynmap', summary: 'A live web map of your worlds.', license: 'Apache-2.0', downloads: 1_200_000, platforms: bukkit,
    versions: [{ version: '3.7-beta-6', gameVersions: mc.old, publishedAt: '2024-06-01T18:00:00Z' }] },
  { slug: 'protocollib', name: 'ProtocolLib', jarName: 'ProtocolLib', summary: 'Read and change packets: the library many plugins need.', license: 'GPL-2.0', downloads: 4_200_000, platforms: bukkit,
    versions: [
      { version: '5.2.0', gameVersions: mc.old, publishedAt: '2024-04-20T11:00:00Z' },
      { version: '5.3.0', gameVersions: mc.new, publishedAt: '2024-10-28T11:00:00Z' },
    ] },
  { slug: 'decentholograms', name: 'DecentHolograms', jarName: 'DecentHolograms', summary: 'Floating text and item holograms.', license: 'GPL-3.0', downloads: 900_000, platforms: bukkit,
    versions: [{ version: '2.8.12', gameVersions: mc.all, publishedAt: '2024-11-10T13:00:00Z', dependencies: ['sample:protocollib'] }] },
  { slug: 'velocitab', name: 'Velocitab', jarName: 'Velocitab', summary: 'A tab list for Velocity networks.', license: 'Apache-2.0', downloads: 300_000, platforms: ['velocity'],
    versions: [{ version: '1.7.4', gameVersions: proxy, publishedAt: '2024-12-05T15:00:00Z' }] },
];

const sampleDenylist: DenyEntry[] = [
  { pluginId: 'sample:coreprotect', version: '22.4', reason: 'Rollbacks can delete unrelated blocks (data loss); use 22.3 until a fix is published.', link: 'https://cairn.dev/advisories/coreprotect-22.4' },
];

/** Where the sample feed and its jars are written: rebuilt at every start, so a new Cairn brings its new sample. */
export const sampleCatalogDir = (dataDir: string) => join(dataDir, 'catalog', 'sample');

/** Builds the sample jars and feed under the data dir; returns the feed file's path (a `--catalog-source`). */
export async function writeSampleCatalog(dataDir: string): Promise<string> {
  const dir = sampleCatalogDir(dataDir);
  const jarDir = join(dir, 'jars');
  await mkdir(jarDir, { recursive: true });
  const plugins: FeedPlugin[] = [];
  for (const p of samplePlugins) {
    const versions = [];
    for (const v of p.versions) {
      const jar = await buildPluginJar({ name: p.jarName, version: v.version, description: p.summary });
      const file = join(jarDir, `${p.slug}-${v.version}.jar`);
      await writeFile(file, jar);
      versions.push({
        versionId: `${p.slug}-${v.version}`, version: v.version, platforms: p.platforms, gameVersions: v.gameVersions,
        dependencies: v.dependencies ?? [], publishedAt: v.publishedAt,
        download: { url: pathToFileURL(file).href, sha256: createHash('sha256').update(jar).digest('hex'), size: jar.length },
      });
    }
    const updated = versions.map((v) => v.publishedAt).sort().at(-1)!;
    plugins.push({
      id: `sample:${p.slug}`, source: 'sample', slug: p.slug, name: p.name, summary: p.summary, license: p.license,
      downloads: p.downloads, url: `https://cairn.dev/sample-catalog/${p.slug}`, updated, versions,
    });
  }
  const feed: CatalogFeed = { plugins, denylist: sampleDenylist };
  const path = join(dir, 'feed.json');
  await writeFile(`${path}.tmp`, JSON.stringify(feed, null, 2));
  await rename(`${path}.tmp`, path);
  return path;
}
