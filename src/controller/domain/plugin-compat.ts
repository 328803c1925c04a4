import type { DenyEntry, FeedPlugin, FeedVersion } from '../schemas/catalog-feed.js';

/** What a plugin version must suit: the server template's platform and the server's game version. */
export interface PluginTarget {
  platform: string;
  gameVersion: string;
}

/**
 * Plugin platforms each server platform also loads: Paper runs Spigot and Bukkit plugins, Purpur
 * runs Paper's too, and so on. A platform not listed loads only its own plugins.
 */
const loads: Record<string, readonly string[]> = {
  paper: ['paper', 'spigot', 'bukkit'],
  purpur: ['purpur', 'paper', 'spigot', 'bukkit'],
  folia: ['folia'],
  spigot: ['spigot', 'bukkit'],
  velocity: ['velocity'],
  waterfall: ['waterfall', 'bungeecord'],
};

export const platformLoads = (serverPlatform: string, pluginPlatform: string): boolean =>
  (loads[serverPlatform.toLowerCase()] ?? [serverPlatform.toLowerCase()]).includes(pluginPlatform.toLowerCase());

export const runsOnPlatform = (version: Pick<FeedVersion, 'platforms'>, platform: string) => version.platforms.some((p) => platformLoads(platform, p));
export const runsOnGameVersion = (version: Pick<FeedVersion, 'gameVersions'>, gameVersion: string) => version.gameVersions.includes(gameVersion);

export const isCompatible = (version: FeedVersion, target: PluginTarget) =>
  runsOnPlatform(version, target.platform) && runsOnGameVersion(version, target.gameVersion);

/** The denylist entry naming this version (by versionId or version text), or every version of the plugin. */
export function denialOf(denylist: readonly DenyEntry[], pluginId: string, version: { versionId?: string; version: string }): DenyEntry | undefined {
  return denylist.find((d) => d.pluginId === pluginId
    && (d.versionId === undefined && d.version === undefined
      || (d.versionId !== undefined && d.versionId === version.versionId)
      || (d.version !== undefined && d.version === version.version)));
}

/** Newest first: by publication time, then by versionId so the order is stable. */
export const newestFirst = (versions: readonly FeedVersion[]): FeedVersion[] =>
  [...versions].sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt) || (a.versionId < b.versionId ? 1 : a.versionId > b.versionId ? -1 : 0));

/** The newest version that suits the target and is not denied. */
export function newestCompatible(plugin: FeedPlugin, target: PluginTarget, denylist: readonly DenyEntry[]): FeedVersion | undefined {
  return newestFirst(plugin.versions).find((v) => isCompatible(v, target) && !denialOf(denylist, plugin.id, v));
}

/** Whether `candidate` is a newer release than the installed version (unknown installed versions count as older). */
export function isNewer(candidate: FeedVersion, installed: FeedVersion | undefined): boolean {
  if (!installed) return true;
  if (candidate.versionId === installed.versionId) return false;
  return Date.parse(candidate.publishedAt) > Date.parse(installed.publishedAt);
}
