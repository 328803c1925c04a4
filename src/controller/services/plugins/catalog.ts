import { CatalogIndex, type CatalogPosition, type CatalogSearch } from '../../domain/catalog-index.js';
import { CatalogFeedError } from '../../adapters/plugins/feed.js';
import { defaultUpstreamBases, type CatalogBases } from '../../adapters/software/upstream-sources.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest, notFound, DomainError } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { denialOf, newestFirst } from '../../domain/plugin-compat.js';
import type { CatalogFeed, DenyEntry, FeedPlugin } from '../../schemas/catalog-feed.js';
import { CatalogSources, sampleSource, type SourcedFeed } from './catalog-sources.js';
import type { Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';

export interface CatalogOptions {
  /** `--catalog-source`: a feed file or an http(s) URL; without it Modrinth and Hangar (the sample while neither has answered). */
  source?: string;
  /** Where Modrinth and Hangar answer (`--software-source modrinth=URL`, `hangar=URL`). */
  bases?: CatalogBases;
  /** Milliseconds between periodic syncs; 0 turns them off. */
  syncIntervalMs: number;
  /** With several Controllers: how often one that does not sync reads whether the one that does stored a new catalog. */
  followEveryMs?: number;
}

export interface SyncResult {
  source: string;
  syncedAt: string;
  pluginCount: number;
  denylistCount: number;
  /** False when the feed was the same as the catalog already held. */
  changed: boolean;
  /** True while the shipped sample stands in for a catalog no source has given yet. */
  sample: boolean;
  unavailable?: SourcedFeed['unavailable'];
}

interface CatalogSetting extends Record<string, unknown> {
  source: string;
  syncedAt: string;
  /** SHA-256 of the feed text; empty while a sync is being written. */
  feedSha256: string;
  denylist: DenyEntry[];
}

const settingId = 'catalog';

/** `<downloads>:<id>` of the last item shown: the catalog list's cursor key. */
const positionKey = (p: FeedPlugin) => `${p.downloads}:${p.id}`;
const isPositionKey = (key: string | number): key is string => typeof key === 'string' && /^\d{1,16}:\S+$/.test(key);
const parsePosition = (key: string): CatalogPosition => {
  const colon = key.indexOf(':');
  return { downloads: Number(key.slice(0, colon)), id: key.slice(colon + 1) };
};

export const catalogListItem = (p: FeedPlugin) => ({
  id: p.id, source: p.source, slug: p.slug, name: p.name, summary: p.summary, license: p.license, downloads: p.downloads, url: p.url, updated: p.updated,
});

/**
 * The synced plugin catalog. The last good feed is kept in the store and served from memory; a
 * sync (at start, every interval, or on request) replaces it only when the new feed is readable
 * and valid, so a source that is down or broken never empties the catalog. Without
 * `--catalog-source` the shipped sample is put in at a first start and stays, marked `sample`,
 * until Modrinth or Hangar answers (catalog-sources.ts).
 */
export class CatalogService {
  private index = CatalogIndex.empty();
  private lastSync?: SyncResult;
  private timer?: NodeJS.Timeout;
  private followTimer?: NodeJS.Timeout;
  /** The feed digest of the catalog in memory, so a Controller following another's syncs reloads only what changed. */
  private loadedSha?: string;
  private readonly sources: CatalogSources;
  private syncing?: Promise<SyncResult>;
  private syncsHere = false;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly options: CatalogOptions,
  ) {
    this.sources = new CatalogSources(deps.dataDir, options.source, options.bases ?? defaultUpstreamBases);
  }

  /** True while the catalog in use is the shipped sample. */
  get sample(): boolean {
    return this.lastSync?.sample ?? false;
  }

  /** The catalog in use now (immutable; a sync swaps in a new one). */
  get current(): CatalogIndex {
    return this.index;
  }

  /**
   * Loads the last good catalog, syncs once, then every interval. A failed first sync is logged,
   * not fatal. The public sources are synced in the background, so an offline Controller starts at
   * once: with the sample when it holds no catalog yet (rebuilt at every start, as its jars are local).
   */
  async start(): Promise<void> {
    await this.loadStored();
    if (this.sources.upstream && (this.index.size === 0 || this.sample)) await this.apply(await this.sources.sample(), 'startup');
    if (this.options.syncIntervalMs > 0) {
      this.timer = setInterval(() => void (this.syncsHere && this.syncNow('periodic').catch(() => undefined)), this.options.syncIntervalMs);
      this.timer.unref();
    }
    if (this.options.followEveryMs !== undefined) {
      this.followTimer = setInterval(() => void (this.syncsHere || this.follow()), this.options.followEveryMs);
      this.followTimer.unref();
    }
  }

  /**
   * Syncing is a fleet-wide job: the Controller running it syncs at its start and every interval;
   * the others read the catalog it stored at each of theirs.
   */
  readonly job = {
    start: async (): Promise<void> => {
      this.syncsHere = true;
      const first = this.syncNow('startup').catch(() => undefined);
      if (!this.sources.upstream) await first;
    },
    stop: (): Promise<void> => {
      this.syncsHere = false;
      return Promise.resolve();
    },
  };

  /** Another Controller syncs: the catalog it stored is read again once its feed changed (and is written whole). */
  private async follow(): Promise<void> {
    try {
      const value = (await this.deps.repos.settings.findById(settingId))?.value as CatalogSetting | undefined;
      if (!value || value.feedSha256 === '') return;
      if (value.feedSha256 !== this.loadedSha) await this.loadStored();
      else if (this.lastSync) this.lastSync = { ...this.lastSync, source: value.source, syncedAt: value.syncedAt };
    } catch (err) {
      this.deps.logger.warn({ err }, 'reading the catalog another Controller synced failed; the one held stays in use');
    }
  }

  stop(): void {
    this.syncsHere = false;
    clearInterval(this.timer);
    clearInterval(this.followTimer);
  }

  private async loadStored(): Promise<void> {
    const setting = await this.deps.repos.settings.findById(settingId);
    if (!setting) return;
    const value = setting.value as CatalogSetting;
    const plugins = (await this.deps.repos.catalogPlugins.find({})).map((d) => d.plugin);
    this.index = new CatalogIndex({ plugins, denylist: value.denylist });
    this.loadedSha = value.feedSha256;
    this.lastSync = { source: value.source, syncedAt: value.syncedAt, pluginCount: plugins.length, denylistCount: value.denylist.length, changed: false, sample: value.source === sampleSource };
  }

  /** One sync at a time: a request during a sync shares its outcome. */
  syncNow(trigger: 'startup' | 'periodic' | 'request'): Promise<SyncResult> {
    this.syncing ??= this.runSync(trigger).finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private async runSync(trigger: string): Promise<SyncResult> {
    try {
      return await this.apply(await this.sources.read(this.index, this.sample), trigger);
    } catch (error) {
      const message = error instanceof CatalogFeedError ? error.message : `storing the catalog failed (${(error as Error).message})`;
      this.deps.logger.warn({ event: 'catalog_sync_failed', trigger, reason: message, keptPlugins: this.index.size }, 'catalog sync failed; the last good catalog stays in use');
      throw new CatalogFeedError(message);
    }
  }

  private async apply({ feed, source, feedSha256, sample, unavailable }: SourcedFeed, trigger: string): Promise<SyncResult> {
    const stored = (await this.deps.repos.settings.findById(settingId))?.value as CatalogSetting | undefined;
    const changed = stored?.feedSha256 !== feedSha256;
    const syncedAt = nowIso(this.deps);
    if (changed) await this.store(feed, { source, syncedAt, feedSha256, denylist: feed.denylist });
    else await this.deps.repos.settings.update({ _id: settingId }, { value: { ...stored, source, syncedAt }, updatedAt: syncedAt });
    this.index = new CatalogIndex(feed);
    this.loadedSha = feedSha256;
    this.lastSync = { source, syncedAt, pluginCount: feed.plugins.length, denylistCount: feed.denylist.length, changed, sample, ...(unavailable ? { unavailable } : {}) };
    const event = sample ? 'catalog_sample_in_use' : 'catalog_synced';
    const log = { event, trigger, source, plugins: feed.plugins.length, denylist: feed.denylist.length, changed, ...(unavailable ? { unavailable } : {}) };
    if (sample || unavailable) this.deps.logger.warn(log, sample ? 'no catalog source answered; the shipped sample catalog is in use' : 'catalog synced; a source did not answer and keeps its last plugins');
    else this.deps.logger.info(log, 'catalog synced');
    return this.lastSync;
  }

  /** Writes the new catalog: marked unfinished first, so a crash half way is visible and the next sync rewrites it. */
  private async store(feed: CatalogFeed, setting: CatalogSetting): Promise<void> {
    const { settings, catalogPlugins } = this.deps.repos;
    const existing = await settings.findById(settingId);
    const unfinished = { ...setting, feedSha256: '' };
    if (existing) await settings.update({ _id: settingId }, { value: unfinished, updatedAt: setting.syncedAt });
    else await settings.insert({ _id: settingId, value: unfinished, updatedAt: setting.syncedAt });
    for (const plugin of feed.plugins) {
      if (!(await catalogPlugins.replace({ _id: plugin.id }, { _id: plugin.id, plugin }))) await catalogPlugins.insert({ _id: plugin.id, plugin });
    }
    await catalogPlugins.delete({ _id: { $nin: feed.plugins.map((p) => p.id) } });
    await settings.update({ _id: settingId }, { value: setting, updatedAt: setting.syncedAt });
  }

  async sync(caller: Caller, audit: AuditScope): Promise<SyncResult> {
    audit.target(settingId);
    this.access.requireGlobalAdmin(caller);
    try {
      const result = await this.syncNow('request');
      audit.detail({ source: result.source, pluginCount: result.pluginCount, denylistCount: result.denylistCount, changed: result.changed, sample: result.sample });
      return result;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DomainError('catalog_sync_failed', `${reason}. The last good catalog (${this.index.size} plugins) stays in use.`);
    }
  }

  status() {
    return this.lastSync;
  }

  async list(query: CatalogSearch & { limit: number; cursor?: string }) {
    const index = this.index;
    const page = await paginate<FeedPlugin, string>(
      query,
      async (after, limit) => index.search(query, after === undefined ? undefined : parsePosition(after), limit),
      positionKey,
      isPositionKey,
    );
    return { ...page, items: page.items.map(catalogListItem), sample: this.sample };
  }

  get(pluginId: string) {
    if (!/^[^:\s]+:\S+$/.test(pluginId)) throw invalidRequest('path.pluginId: must look like <source>:<id>.');
    const plugin = this.index.plugin(pluginId);
    if (!plugin) throw notFound('catalog plugin');
    return {
      ...catalogListItem(plugin),
      sample: this.sample,
      versions: newestFirst(plugin.versions).map((v) => {
        const denial = denialOf(this.index.denylist, plugin.id, v);
        return {
          versionId: v.versionId, version: v.version, platforms: v.platforms, gameVersions: v.gameVersions, dependencies: v.dependencies, publishedAt: v.publishedAt,
          ...(denial ? { denied: { reason: denial.reason, ...(denial.link ? { link: denial.link } : {}) } } : {}),
        };
      }),
    };
  }
}
