import type { CatalogLookup } from './plugin-deps.js';
import { runsOnGameVersion, runsOnPlatform } from './plugin-compat.js';
import type { CatalogFeed, DenyEntry, FeedPlugin, FeedVersion } from '../schemas/catalog-feed.js';

export interface CatalogSearch {
  search?: string;
  platform?: string;
  gameVersion?: string;
}

/** The list order: most downloaded first, then by id, so equal counts page stably. */
const byDownloads = (a: FeedPlugin, b: FeedPlugin) => b.downloads - a.downloads || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A page position: the sort key of the last item shown. */
export interface CatalogPosition {
  downloads: number;
  id: string;
}

const isAfter = (p: FeedPlugin, at: CatalogPosition) => p.downloads < at.downloads || (p.downloads === at.downloads && p.id > at.id);

/** One synced catalog, immutable, held in memory: lookups by id and the search the API offers. */
export class CatalogIndex implements CatalogLookup {
  private readonly byId: Map<string, FeedPlugin>;
  private readonly ordered: FeedPlugin[];

  constructor(readonly feed: CatalogFeed) {
    this.byId = new Map(feed.plugins.map((p) => [p.id, p]));
    this.ordered = [...feed.plugins].sort(byDownloads);
  }

  static empty(): CatalogIndex {
    return new CatalogIndex({ plugins: [], denylist: [] });
  }

  get denylist(): readonly DenyEntry[] {
    return this.feed.denylist;
  }

  get size(): number {
    return this.ordered.length;
  }

  plugin(pluginId: string): FeedPlugin | undefined {
    return this.byId.get(pluginId);
  }

  version(pluginId: string, versionId: string | undefined): FeedVersion | undefined {
    return versionId === undefined ? undefined : this.byId.get(pluginId)?.versions.find((v) => v.versionId === versionId);
  }

  /**
   * `search` matches name, slug or summary (case-insensitive substring); `platform` and
   * `gameVersion` keep plugins with a version that runs there (both on the same version when both
   * are given). Returns up to `limit` plugins after `after`, in list order.
   */
  search(query: CatalogSearch, after: CatalogPosition | undefined, limit: number): FeedPlugin[] {
    const needle = query.search?.trim().toLowerCase();
    const keepVersion = (v: FeedVersion) =>
      (query.platform === undefined || runsOnPlatform(v, query.platform)) && (query.gameVersion === undefined || runsOnGameVersion(v, query.gameVersion));
    const out: FeedPlugin[] = [];
    for (const p of this.ordered) {
      if (after && !isAfter(p, after)) continue;
      if (needle && ![p.name, p.slug, p.summary].some((text) => text.toLowerCase().includes(needle))) continue;
      if ((query.platform !== undefined || query.gameVersion !== undefined) && !p.versions.some(keepVersion)) continue;
      out.push(p);
      if (out.length === limit) break;
    }
    return out;
  }
}
