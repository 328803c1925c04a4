import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Template } from '../../../shared/templates.js';
import type { ArtifactStore } from '../../adapters/software/artifact-store.js';
import { listProjectVersions, searchModpacks } from '../../adapters/software/modrinth-api.js';
import { composePackSoftware } from '../../adapters/software/modpack-template.js';
import type { PackSource, ResolvedSoftware, TemplateCatalog, Unprepared } from '../../adapters/software/template-catalog.js';
import { DomainError, invalidRequest } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import type { ModrinthVersion } from '../../schemas/modrinth-answers.js';
import type { PackSummaryView, ServerModpackView } from '../../schemas/modpacks.js';
import type { TemplateVersionView } from '../../schemas/software.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { PackRefused, readPackVersion, type PackReading } from './modpack-reader.js';

/** A pack version the Controller read, as its store document keeps it. */
interface PackRecord extends PackReading {
  kind: typeof recordKind;
  project: string;
  versionId: string;
  readAt: string;
}

export interface ModpackOptions {
  /** Modrinth's API v2 base (`--software-source modrinth`). */
  base: string;
  concurrency?: number;
  fileTimeoutMs?: number;
}

const recordKind = 'modrinth-pack';
const recordId = (version: string) => `modrinth-pack:${version}`;
const listId = (project: string) => `modrinth-versions:${project}`;
const versionPattern = /^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9]{1,32})$/;
/** A project's versions asked again within this are answered from memory. */
const listFreshMs = 60_000;
const loaderTemplates: Record<string, string> = { fabric: 'fabric', neoforge: 'neoforge', forge: 'forge' };

/**
 * Modrinth modpacks (`modrinth` template, `software.version` `<slug>:<version id>`). A pack
 * version is read once, before a server is given it (`modpack-reader.ts`), and recorded in the
 * store, one document per version, so neither a restart nor another Controller reads it again; it
 * resolves onto its loader's software with the pack's files placed into the server's root. A
 * project's versions are asked of Modrinth when listed; the last good list is kept in the store.
 */
export class ModpackService implements PackSource {
  private readonly records = new Map<string, PackRecord>();
  private readonly lists = new Map<string, { versions: ModrinthVersion[]; at: number }>();
  private readonly composed = new Map<string, { loader: ResolvedSoftware; value: ResolvedSoftware }>();
  private readonly reading = new KeyedMutex();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly store: ArtifactStore,
    private readonly templates: TemplateCatalog,
    private readonly options: ModpackOptions,
  ) {}

  /** Every pack version read so far, in use at once (servers running them resolve from these). */
  async start(): Promise<void> {
    for (const doc of await this.deps.repos.settings.find({ 'value.kind': recordKind })) {
      const record = doc.value as unknown as PackRecord;
      this.records.set(`${record.project}:${record.versionId}`, record);
    }
    this.templates.usePacks(this);
  }

  async prepare(software: { version: string; build?: string }): Promise<Unprepared | undefined> {
    if (software.build !== undefined) return { field: 'build', problem: 'a modpack names its loader version itself: send no build' };
    const match = versionPattern.exec(software.version);
    if (!match) return { field: 'version', problem: `"${software.version}" is not <project slug>:<version id>` };
    try {
      const record = this.records.get(software.version) ?? await this.reading.run(software.version, () => this.read(match[1], match[2]));
      const loader = { template: record.loader.template, version: record.game, build: record.loader.build };
      if (!this.templates.get(loader.template)) return { field: 'version', problem: `the pack runs on ${loader.template}, which this Controller has no template for` };
      const unprepared = await this.templates.prepare(loader);
      if (unprepared) return { field: 'version', problem: `the pack's loader ${loader.template} ${loader.version} ${loader.build}: ${unprepared.problem}` };
      const resolved = this.templates.resolve(loader);
      return 'problem' in resolved ? { field: 'version', problem: `the pack's loader: ${resolved.problem}` } : undefined;
    } catch (e) {
      if (e instanceof PackRefused || e instanceof DomainError) return { field: 'version', problem: `modpack ${software.version}: ${e.message}` };
      throw e;
    }
  }

  resolve(pack: Template, version: string): ResolvedSoftware | { problem: string } {
    const record = this.records.get(version);
    if (!record) return { problem: `the modpack version ${version} has not been read by this Controller` };
    const loader = this.templates.resolve({ template: record.loader.template, version: record.game, build: record.loader.build });
    if ('problem' in loader) return loader;
    const cached = this.composed.get(version);
    if (cached?.loader === loader) return cached.value;
    const value = composePackSoftware(pack, version, record, loader);
    this.composed.set(version, { loader, value });
    return value;
  }

  gameOf(version: string): string | undefined {
    return this.records.get(version)?.game;
  }

  /** Server detail's `modpack`, for a server of a pack version this Controller read. */
  modpackOf(version: string): ServerModpackView | undefined {
    const record = this.records.get(version);
    if (!record) return undefined;
    const { project, title, versionId, versionName, game, loader } = record;
    return { project, ...(title ? { title } : {}), versionId, versionName, game, loader };
  }

  /** `GET /templates/modrinth/versions?project=`: the project's pack versions Cairn can run, newest first. */
  async versions(project: string | undefined, page: { limit: number; cursor?: string }) {
    if (!project) throw invalidRequest('query.project: name the Modrinth project (its slug) whose versions to list.');
    const all = (await this.projectVersions(project)).flatMap((v) => {
      const loader = v.loaders.map((l) => loaderTemplates[l]).find(Boolean);
      if (!loader || !v.files.some((f) => f.filename.endsWith('.mrpack'))) return [];
      const version = `${project}:${v.id}`;
      const read = this.records.get(version);
      const item: TemplateVersionView = {
        version, name: v.version_number, game: read?.game ?? v.game_versions.at(0) ?? '',
        loader: { template: loader, ...(read ? { build: read.loader.build } : {}) },
      };
      return [item];
    });
    const index = new Map(all.map((v, i) => [v.version, i]));
    return paginate<TemplateVersionView, string>(page, async (after, limit) => all.slice(after === undefined ? 0 : (index.get(after) ?? all.length) + 1).slice(0, limit), (v) => v.version);
  }

  /** `GET /templates/modrinth/packs`: Modrinth's modpacks matching the words, in its order. */
  async search(query: string | undefined, limit: number): Promise<{ items: PackSummaryView[] }> {
    try {
      const hits = await searchModpacks(this.options.base, query ?? '', limit);
      return {
        items: hits.map((h) => ({
          slug: h.slug, title: h.title, description: h.description, downloads: h.downloads, gameVersions: h.versions,
          loaders: h.categories.filter((c) => c in loaderTemplates || c === 'quilt'), ...(h.icon_url ? { iconUrl: h.icon_url } : {}),
        })),
      };
    } catch (e) {
      throw new DomainError('upstream_unavailable', `Modrinth's search could not be read: ${(e as Error).message}.`);
    }
  }

  /** A project's versions from Modrinth, else the last good list the store keeps; refused when there is neither. */
  private async projectVersions(project: string): Promise<ModrinthVersion[]> {
    const held = this.lists.get(project);
    if (held && this.deps.clock.now().getTime() - held.at < listFreshMs) return held.versions;
    try {
      const versions = await listProjectVersions(this.options.base, project);
      this.lists.set(project, { versions, at: this.deps.clock.now().getTime() });
      await this.put(listId(project), { versions, syncedAt: nowIso(this.deps) });
      return versions;
    } catch (e) {
      const stored = held?.versions ?? ((await this.deps.repos.settings.findById(listId(project)))?.value as { versions: ModrinthVersion[] } | undefined)?.versions;
      if (stored) return stored;
      throw new DomainError('upstream_unavailable', `Modrinth's versions of ${project} could not be read, and none were read before: ${(e as Error).message}.`);
    }
  }

  private async read(project: string, versionId: string): Promise<PackRecord> {
    const version = `${project}:${versionId}`;
    const stored = (await this.deps.repos.settings.findById(recordId(version)))?.value as PackRecord | undefined;
    if (stored) {
      this.records.set(version, stored);
      return stored;
    }
    const listed = (await this.projectVersions(project)).find((v) => v.id === versionId);
    if (!listed) throw new PackRefused(`Modrinth lists no version ${versionId} of ${project}`);
    const started = Date.now();
    const read = await readPackVersion(this.store, listed, { base: this.options.base, concurrency: this.options.concurrency ?? 4, fileTimeoutMs: this.options.fileTimeoutMs ?? 120_000 });
    const record: PackRecord = { kind: recordKind, project, versionId, ...read, readAt: nowIso(this.deps) };
    await this.put(recordId(version), record);
    this.records.set(version, record);
    this.deps.logger.info({ event: 'modpack_read', version, files: read.produced.length - 1, ms: Date.now() - started }, 'modpack version read: its files are checked and held by checksum');
    return record;
  }

  private async put(id: string, value: object): Promise<void> {
    const doc = { value: value as Record<string, unknown>, updatedAt: nowIso(this.deps) };
    if ((await this.deps.repos.settings.update({ _id: id }, doc)) === 0) await this.deps.repos.settings.insert({ _id: id, ...doc });
  }
}
