import { syncFailureWords } from './sync-failure-words.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import type { ListedVersionRecord, SoftwareSyncResultView, TemplateVersionView } from '../../schemas/software.js';
import { listFabricVersions } from '../../adapters/software/fabric-listing.js';
import { listMojangReleases } from '../../adapters/software/mojang-listing.js';
import { listPaperProject } from '../../adapters/software/papermc-listing.js';
import type { TemplateCatalog, UpstreamListings, VersionSyncState } from '../../adapters/software/template-catalog.js';
import { fixedVersions, type UpstreamVersionsSpec } from '../../../shared/templates.js';
import type { Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { readShippedSnapshot } from './software-snapshot.js';
import { listingKey, type UpstreamBases } from '../../adapters/software/upstream-sources.js';
import { PinFailure, type LauncherPins } from './launcher-pins.js';
import { listMavenLoader } from '../../adapters/software/maven-listing.js';
import { InstallerFailure, type InstallerOptions, type InstallerRuns, type InstallerSource } from './installer-runs.js';

export interface SoftwareOptions {
  bases: UpstreamBases;
  /** Milliseconds between syncs; 0 syncs only at start and on request. */
  syncIntervalMs: number;
  /** With several Controllers: how often one that does not sync reads the listings the one that does stored. */
  followEveryMs?: number;
  /** How the Controller runs NeoForge's and Forge's installers. */
  installer?: InstallerOptions;
}

interface Listing {
  spec: UpstreamVersionsSpec;
  /** As synced (and stored). */
  versions: ListedVersionRecord[];
  /** What servers are offered: `versions`, with the pinned launchers' checksums for Fabric. */
  offered: ListedVersionRecord[];
  /**
   * The upstream address the versions were synced from; none for the snapshot. A sync reuses
   * builds it already holds only when they came from the same address.
   */
  from?: string;
  syncedAt?: string;
  error?: string;
}

/** A listing as the store keeps it (`software:<key>` in settings), written by whichever Controller synced it. */
interface StoredListing {
  versions: ListedVersionRecord[];
  syncedAt: string;
  from?: string;
}

const settingId = (key: string) => `software:${key}`;
const mojangSpec: UpstreamVersionsSpec = { source: 'mojang' };
/** The loaders' versions take the server jar or Java from Mojang's listing: they are synced after it. */
const syncOrder = (spec: UpstreamVersionsSpec) => (spec.source === 'mojang' || spec.source === 'papermc' ? 0 : 1);
const isInstaller = (source: string): source is InstallerSource => source === 'neoforge' || source === 'forge';

/**
 * The versions upstreams list for the templates that name one: loaded from the store (or the
 * shipped snapshot) at start, synced then and every interval, one sync at a time. A failed sync
 * keeps the last good list; a listing is replaced as a whole (a new array), which is how the
 * template catalog notices a change.
 */
export class SoftwareService implements UpstreamListings {
  private readonly listings = new Map<string, Listing>();
  private timer?: NodeJS.Timeout;
  private followTimer?: NodeJS.Timeout;
  private syncsHere = false;
  private syncing?: Promise<SoftwareSyncResultView>;
  private readonly abort = new AbortController();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly templates: TemplateCatalog,
    private readonly options: SoftwareOptions,
    private readonly pins: LauncherPins,
    private readonly installs: InstallerRuns,
  ) {}

  listed(spec: UpstreamVersionsSpec): readonly ListedVersionRecord[] {
    return this.listings.get(listingKey(spec))?.offered ?? [];
  }

  /**
   * Makes a choice installable before a server is given it: a Fabric build whose launcher is not
   * pinned yet is downloaded and pinned now. Answers why it cannot be, if so.
   */
  async prepare(spec: UpstreamVersionsSpec, software: { version: string; build?: string }): Promise<string | undefined> {
    const listing = this.listings.get(listingKey(spec));
    const version = listing?.offered.find((v) => v.version === software.version);
    const build = version?.builds?.find((b) => b.id === (software.build ?? version.latestBuild));
    if (listing && version && build && isInstaller(spec.source)) return this.prepareInstaller(listing, spec.source, version.version, build);
    if (!listing || !version?.installer || !build || build.download.sha256) return undefined;
    try {
      await this.pins.pin(version.version, build.id, version.installer, build.download.url);
    } catch (e) {
      if (e instanceof PinFailure) return e.message;
      throw e;
    }
    listing.offered = this.pins.applyTo(listing.versions);
    return undefined;
  }

  /** A NeoForge or Forge build whose installer has not run yet is run now, on the Controller. */
  private async prepareInstaller(listing: Listing, source: InstallerSource, game: string, build: NonNullable<ListedVersionRecord['builds']>[number]): Promise<string | undefined> {
    if (build.installed) return undefined;
    try {
      await this.installs.prepare(source, game, build);
    } catch (e) {
      if (e instanceof InstallerFailure) return e.message;
      throw e;
    }
    listing.offered = this.installs.applyTo(source, listing.versions);
    return undefined;
  }

  syncState(spec: UpstreamVersionsSpec): VersionSyncState {
    const listing = this.listings.get(listingKey(spec));
    return { ...(listing?.syncedAt ? { syncedAt: listing.syncedAt } : {}), ...(listing?.error ? { error: listing.error } : {}) };
  }

  /** Stored listings (else the snapshot's) in use at once; the first sync runs in the background, so an offline Controller starts as fast. */
  async start(): Promise<void> {
    const snapshot = await readShippedSnapshot();
    await this.pins.load();
    for (const source of ['neoforge', 'forge'] as const) await this.installs.load(source);
    // A modpack's versions are one project's, asked of Modrinth when listed (modpacks.ts): nothing to sync.
    const specs = this.templates.list().flatMap((t) => (fixedVersions(t) ? [] : [t.versions as UpstreamVersionsSpec])).filter((spec) => spec.source !== 'modrinth');
    if (specs.some((spec) => spec.source === 'fabric' || isInstaller(spec.source))) specs.push(mojangSpec);
    for (const spec of specs.sort((a, b) => syncOrder(a) - syncOrder(b))) {
      const key = listingKey(spec);
      if (this.listings.has(key)) continue;
      const stored = (await this.deps.repos.settings.findById(settingId(key)))?.value as StoredListing | undefined;
      const versions = stored?.versions ?? snapshot.get(key) ?? [];
      this.listings.set(key, { spec, versions, offered: this.offer(spec, versions), ...(stored ? { syncedAt: stored.syncedAt } : {}), ...(stored?.from ? { from: stored.from } : {}) });
    }
    this.templates.useListings(this);
    if (this.options.syncIntervalMs > 0) {
      this.timer = setInterval(() => void (this.syncsHere && this.syncNow('periodic')), this.options.syncIntervalMs);
      this.timer.unref();
    }
    if (this.options.followEveryMs !== undefined) {
      this.followTimer = setInterval(() => void (this.syncsHere || this.follow()), this.options.followEveryMs);
      this.followTimer.unref();
    }
  }

  /**
   * Syncing is a fleet-wide job: the Controller running it syncs at its start (in the background)
   * and every interval; the others read the listings it stored.
   */
  readonly job = {
    start: (): Promise<void> => {
      this.syncsHere = true;
      void this.syncNow('startup');
      return Promise.resolve();
    },
    stop: (): Promise<void> => {
      this.syncsHere = false;
      return Promise.resolve();
    },
  };

  stop(): void {
    this.syncsHere = false;
    clearInterval(this.timer);
    clearInterval(this.followTimer);
    this.abort.abort();
  }

  /** Another Controller syncs: each listing it stored since is taken up here, as a new array. */
  private async follow(): Promise<void> {
    try {
      for (const [key, listing] of this.listings) {
        const stored = (await this.deps.repos.settings.findById(settingId(key)))?.value as StoredListing | undefined;
        if (!stored || stored.syncedAt === listing.syncedAt) continue;
        if (listing.spec.source === 'fabric') await this.pins.load();
        if (isInstaller(listing.spec.source)) await this.installs.load(listing.spec.source);
        Object.assign(listing, { versions: stored.versions, offered: this.offer(listing.spec, stored.versions), syncedAt: stored.syncedAt, from: stored.from });
        delete listing.error;
      }
    } catch (err) {
      this.deps.logger.warn({ err }, 'reading the software listings another Controller synced failed; the ones held stay in use');
    }
  }

  /** `POST /software/sync`: every upstream now; each source's outcome, the last good list kept where one failed. */
  async sync(caller: Caller, audit: AuditScope): Promise<SoftwareSyncResultView> {
    audit.target('software');
    this.access.requireGlobalAdmin(caller);
    const result = await this.syncNow('request');
    audit.detail({ sources: result.sources.map((s) => `${s.source}:${s.ok ? s.versionCount : 'failed'}`).join(' ') });
    return result;
  }

  /** `GET /templates/{id}/versions`, newest first, paged by version. */
  async versions(templateId: string, page: { limit: number; cursor?: string }) {
    if (!this.templates.get(templateId)) throw notFound('template');
    const all = this.templates.versionsOf(templateId);
    const index = new Map(all.map((v, i) => [v.version, i]));
    return paginate<ListedVersionRecord, string>(
      page,
      async (after, limit) => all.slice(after === undefined ? 0 : (index.get(after) ?? all.length) + 1).slice(0, limit),
      (v) => v.version,
    ).then((result) => ({ ...result, items: result.items.map(versionView) }));
  }

  private syncNow(trigger: string): Promise<SoftwareSyncResultView> {
    this.syncing ??= this.runSync(trigger).finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private async runSync(trigger: string): Promise<SoftwareSyncResultView> {
    const sources: SoftwareSyncResultView['sources'] = [];
    for (const [key, listing] of this.listings) {
      const started = process.cpuUsage();
      const from = this.options.bases[listing.spec.source];
      const held = listing.from === from ? listing.versions : [];
      try {
        const versions = await this.fetchListing(listing.spec, from, held);
        const syncedAt = nowIso(this.deps);
        const changed = JSON.stringify(versions) !== JSON.stringify(listing.versions);
        if (changed) listing.versions = versions;
        // Another Controller on the store may have pinned launchers since: their checksums are offered here too.
        if (listing.spec.source === 'fabric') await this.pins.load();
        if (isInstaller(listing.spec.source)) await this.installs.load(listing.spec.source);
        if (changed || listing.spec.source === 'fabric' || isInstaller(listing.spec.source)) listing.offered = this.offer(listing.spec, versions);
        listing.from = from;
        listing.syncedAt = syncedAt;
        delete listing.error;
        await this.store(key, listing);
        const cpu = process.cpuUsage(started);
        this.deps.logger.info({ event: 'software_synced', trigger, source: key, versions: versions.length, changed, cpuMs: Math.round((cpu.user + cpu.system) / 1000) }, 'software versions synced');
        sources.push({ source: key, ok: true, versionCount: versions.length, syncedAt });
      } catch (error) {
        listing.error = (error as Error).message;
        sources.push({ source: key, ok: false, versionCount: listing.versions.length, ...(listing.syncedAt ? { syncedAt: listing.syncedAt } : {}), error: listing.error });
      }
    }
    const failed = sources.filter((source) => !source.ok);
    // One line for all sources: offline, each vendor failing alike would otherwise be a warning per template.
    if (failed.length > 0) {
      this.deps.logger.warn(
        { event: 'software_sync_failed', trigger, sources: failed.map(({ source, error, versionCount }) => ({ source, reason: error, keptVersions: versionCount })) },
        syncFailureWords(failed.map(({ source, error }) => ({ source, reason: error ?? 'unknown' }))),
      );
    }
    return { sources };
  }

  private fetchListing(spec: UpstreamVersionsSpec, from: string, held: ListedVersionRecord[]): Promise<ListedVersionRecord[]> {
    switch (spec.source) {
      case 'papermc': return listPaperProject(from, spec.project ?? 'paper', held, this.abort.signal);
      case 'mojang': return listMojangReleases(from, held, this.abort.signal);
      case 'fabric': return listFabricVersions(from, this.listed(mojangSpec), this.abort.signal);
      case 'neoforge': case 'forge': return listMavenLoader(spec.source, from, this.listed(mojangSpec), this.abort.signal);
      default: return Promise.reject(new Error(`no listing is synced for ${spec.source}`));
    }
  }

  private offer(spec: UpstreamVersionsSpec, versions: ListedVersionRecord[]): ListedVersionRecord[] {
    if (isInstaller(spec.source)) return this.installs.applyTo(spec.source, versions);
    return spec.source === 'fabric' ? this.pins.applyTo(versions) : versions;
  }

  private async store(key: string, listing: Listing): Promise<void> {
    const value = { versions: listing.versions, syncedAt: listing.syncedAt!, from: listing.from };
    const updated = await this.deps.repos.settings.update({ _id: settingId(key) }, { value, updatedAt: value.syncedAt });
    if (updated === 0) await this.deps.repos.settings.insert({ _id: settingId(key), value, updatedAt: value.syncedAt });
  }
}

const versionView = (v: ListedVersionRecord): TemplateVersionView => ({
  version: v.version,
  ...(v.type ? { type: v.type } : {}),
  ...(v.java ? { java: v.java } : {}),
  ...(v.latestBuild ? { latestBuild: v.latestBuild } : {}),
  ...(v.builds ? { builds: v.builds.map(({ id, channel, sha256, size }) => ({ id, channel, ...(sha256 ? { sha256 } : {}), ...(size !== undefined ? { size } : {}) })) } : {}),
});
