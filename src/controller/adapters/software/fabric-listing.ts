import type { ListedVersionRecord } from '../../schemas/software.js';
import { FabricComponentVersions, FabricGameVersions } from '../../schemas/upstream-listings.js';
import { checkedAnswer } from './checked-answer.js';
import { buildsKept } from './papermc-listing.js';
import { fetchUpstreamJson } from './upstream-http.js';

const get = async <T extends typeof FabricGameVersions | typeof FabricComponentVersions>(schema: T, url: string, signal?: AbortSignal) =>
  checkedAnswer(schema, await fetchUpstreamJson(url, signal), url);

/**
 * Fabric's stable game versions from its meta API v2 (`base` is the `/v2` root), newest first as
 * it lists them: three requests (game versions, loaders, installers). Each version's builds are the
 * newest stable loaders, the first the default, each downloading the server launcher of the newest
 * stable installer. The launcher runs Mojang's server jar, so a version is offered only when
 * Mojang's listing (`mojang`) has that release's server download, whose sha1 and Java it takes.
 * Fabric publishes no checksum for the launcher: its sha256 is pinned at its first download.
 */
export async function listFabricVersions(base: string, mojang: readonly ListedVersionRecord[], signal?: AbortSignal): Promise<ListedVersionRecord[]> {
  const root = base.replace(/\/+$/, '');
  const games = await get(FabricGameVersions, `${root}/versions/game`, signal);
  const loaders = (await get(FabricComponentVersions, `${root}/versions/loader`, signal)).filter((l) => l.stable).slice(0, buildsKept);
  const installer = (await get(FabricComponentVersions, `${root}/versions/installer`, signal)).find((i) => i.stable);
  if (!installer || loaders.length === 0) return [];
  const releases = new Map(mojang.map((v) => [v.version, v]));
  const listed: ListedVersionRecord[] = [];
  for (const game of games) {
    const release = releases.get(game.version);
    if (!game.stable || !release?.download) continue;
    const path = (loader: string) => [game.version, loader, installer.version].map(encodeURIComponent).join('/');
    listed.push({
      version: game.version,
      ...(release.java ? { java: release.java } : {}),
      latestBuild: loaders[0].version,
      builds: loaders.map((l) => ({ id: l.version, channel: 'STABLE', download: { url: `${root}/versions/loader/${path(l.version)}/server/jar` } })),
      download: release.download,
      installer: installer.version,
    });
  }
  return listed;
}
