import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaProblem } from '../../../shared/template-check.js';
import { checkTemplateRules } from '../../../shared/template-rules.js';
import { fixedVersions, type DownloadArtifactSpec, type Template, type UpstreamVersionsSpec } from '../../../shared/templates.js';
import type { ServerModpackView } from '../../schemas/modpacks.js';
import type { ArtifactDownloadSpec, ListedVersionRecord } from '../../schemas/software.js';
import { resolveInstallerChoice, runsInstaller } from './installer-template.js';

/** The versions upstreams list, as last synced (or as the shipped snapshot has them), newest first. */
export interface UpstreamListings {
  listed(source: UpstreamVersionsSpec): readonly ListedVersionRecord[];
  /** When the listing was last synced (none: the shipped snapshot's) and why the last sync failed, if it did. */
  syncState(source: UpstreamVersionsSpec): VersionSyncState;
  /** Makes a listed choice installable (fetches what has no published checksum); why it cannot be, if so. */
  prepare(source: UpstreamVersionsSpec, software: { version: string; build?: string }): Promise<string | undefined>;
}

/** Modpacks (`versions.source` `modrinth`): read before a server is given one, resolved onto their loader. */
export interface PackSource {
  prepare(software: { version: string; build?: string }): Promise<Unprepared | undefined>;
  resolve(pack: Template, version: string): ResolvedSoftware | { problem: string };
  /** The game version a read pack version runs. */
  gameOf(version: string): string | undefined;
  /** A read pack version as a server's detail shows it. */
  modpackOf(version: string): ServerModpackView | undefined;
}

/** Why a choice cannot be installed, and which field of it is to blame. */
export interface Unprepared {
  field: 'version' | 'build';
  problem: string;
}

export interface VersionSyncState {
  syncedAt?: string;
  error?: string;
}

/** What the Agent needs to install one software choice, and where the Controller fetches its artifact. */
export interface ResolvedSoftware {
  /** The template as sent to the Agent: one version, its one artifact (by checksum, no URL), its Java. */
  template: Template;
  /** The build installed (the newest listed when none was asked for). */
  build?: string;
  /** Where the Controller fetches the artifact; none for a built-in program. */
  download?: ArtifactDownloadSpec;
  /** What the Controller fetches too, installed beside the artifact (Fabric: Mojang's server jar). */
  companions?: ArtifactDownloadSpec[];
  /**
   * What the Controller made itself and holds in its artifact store (an installer's output, a
   * modpack's files, their sets' manifests): served to Nodes by checksum, never fetched.
   */
  produced?: { sha256: string; size: number }[];
}

const noListings: UpstreamListings = { listed: () => [], syncState: () => ({}), prepare: () => Promise.resolve(undefined) };

/** A template file the Controller refuses to start with; the message names the file and the field. */
export class TemplateFileError extends Error {
  constructor(readonly file: string, readonly problem: string) {
    super(`template ${file}: ${problem}`);
    this.name = 'TemplateFileError';
  }
}

/**
 * The project's `templates/` directory. Found by walking up from this module to the package root,
 * so it is the same from `src/` under tsx and from `dist/src/` after a build.
 */
export function defaultTemplatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Cairn package root to locate templates/');
    dir = parent;
  }
  return join(dir, 'templates');
}

/** Parses and checks one template file's text; `file` is its path, named in every message. */
export function parseTemplate(file: string, text: string): Template {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TemplateFileError(file, `not valid JSON (${(error as Error).message})`);
  }
  const invalid = schemaProblem(value);
  if (invalid) throw new TemplateFileError(file, invalid);
  const template = value as Template;
  const expectedFile = `${template.id}.json`;
  if (basename(file) !== expectedFile) throw new TemplateFileError(file, `id: "${template.id}" must be stored as ${expectedFile}`);
  const problem = checkTemplateRules(template);
  if (problem) throw new TemplateFileError(file, problem);
  return template;
}

/** The service templates the Controller offers, loaded once at start from one directory. */
export class TemplateCatalog {
  private readonly byId: Map<string, Template>;
  /** Resolved choices by `template version build` and the listing they came from: 100,000 servers share a handful. */
  private readonly resolved = new Map<string, { from: readonly ListedVersionRecord[]; value: ResolvedSoftware }>();
  private listings: UpstreamListings = noListings;
  private packs?: PackSource;

  constructor(templates: Template[]) {
    this.byId = new Map([...templates].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => [t.id, t]));
  }

  /** Where upstream templates' versions come from (the software service, once it has loaded them). */
  useListings(listings: UpstreamListings): void {
    this.listings = listings;
    this.resolved.clear();
  }

  /** Where modpack templates' versions are read (the modpack service, once it has loaded them). */
  usePacks(packs: PackSource): void {
    this.packs = packs;
  }

  /** Reads every `*.json` in `dir`; any bad file refuses the whole catalog. */
  static async load(dir: string = defaultTemplatesDir()): Promise<TemplateCatalog> {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
    } catch (error) {
      throw new TemplateFileError(dir, `cannot read the templates directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (names.length === 0) throw new TemplateFileError(dir, 'no *.json template files in the templates directory');
    const templates: Template[] = [];
    for (const name of names) {
      const file = join(dir, name);
      templates.push(parseTemplate(file, await readFile(file, 'utf8')));
    }
    return new TemplateCatalog(templates);
  }

  get(id: string): Template | undefined {
    return this.byId.get(id);
  }

  /** Ordered by id. */
  list(): Template[] {
    return [...this.byId.values()];
  }

  /** The versions a server of the template can run now, newest first. */
  versionsOf(id: string): readonly ListedVersionRecord[] {
    const template = this.byId.get(id);
    if (!template) return [];
    const fixed = fixedVersions(template);
    if (!fixed) return this.listings.listed(template.versions as UpstreamVersionsSpec);
    const artifacts: Partial<Record<string, DownloadArtifactSpec>> = template.install.source === 'download' ? template.install.artifacts : {};
    return fixed.map((version) => {
      const artifact = artifacts[version];
      return {
        version,
        ...(template.java ? { java: template.java } : {}),
        ...(artifact?.build ? { latestBuild: artifact.build } : {}),
        ...(artifact?.url ? { download: { url: artifact.url, ...pick(artifact) } } : {}),
      };
    });
  }

  /** Where an upstream template's versions stand; undefined for a template with its own list. */
  syncStateOf(id: string): VersionSyncState | undefined {
    const template = this.byId.get(id);
    // A modpack's versions are asked of Modrinth per project, never synced.
    if (!template || fixedVersions(template) || (template.versions as UpstreamVersionsSpec).source === 'modrinth') return undefined;
    return this.listings.syncState(template.versions as UpstreamVersionsSpec);
  }

  findVersion(id: string, version: string): ListedVersionRecord | undefined {
    return this.versionsOf(id).find((v) => v.version === version);
  }

  /**
   * Before a server is given the software: what the template's upstream publishes no checksum for
   * is fetched and pinned, so `resolve` can answer. Why it cannot be, if so.
   */
  async prepare(software: { template: string; version: string; build?: string }): Promise<Unprepared | undefined> {
    const template = this.byId.get(software.template);
    if (!template || fixedVersions(template)) return undefined;
    const packs = this.packOf(template);
    if (packs) return packs.prepare(software);
    const problem = await this.listings.prepare(template.versions as UpstreamVersionsSpec, software);
    return problem === undefined ? undefined : { field: 'build', problem };
  }

  /** The game version a choice runs: its version, or for a modpack the one the pack names. */
  gameVersionOf(software: { template: string; version: string }): string {
    const template = this.byId.get(software.template);
    return (template && this.packOf(template)?.gameOf(software.version)) ?? software.version;
  }

  /** The modpack a server's software is, as read (server detail's `modpack`). */
  modpackOf(software: { template: string; version: string }): ServerModpackView | undefined {
    const template = this.byId.get(software.template);
    return template ? this.packOf(template)?.modpackOf(software.version) : undefined;
  }

  private packOf(template: Template): PackSource | undefined {
    return !fixedVersions(template) && (template.versions as UpstreamVersionsSpec).source === 'modrinth' ? this.packs : undefined;
  }

  /** The Java major a version of the template needs, if any (placement prefers Nodes that have it). */
  javaMinimum(software: { template: string; version: string }): number | undefined {
    return this.findVersion(software.template, software.version)?.java?.minimum;
  }

  supports(id: string, version: string): boolean {
    return this.findVersion(id, version) !== undefined;
  }

  /**
   * The software as an Agent installs it, or why it cannot be: a version or build the listing
   * lacks. A template whose one artifact is known only by URL stays as it is.
   */
  resolve(software: { template: string; version: string; build?: string }): ResolvedSoftware | { problem: string } {
    const template = this.byId.get(software.template);
    if (!template) return { problem: `no template ${software.template}` };
    const packs = this.packOf(template);
    if (packs) return packs.resolve(template, software.version);
    const listing = this.versionsOf(template.id);
    const key = `${template.id} ${software.version} ${software.build ?? ''}`;
    const cached = this.resolved.get(key);
    if (cached?.from === listing) return cached.value;
    const listed = listing.find((v) => v.version === software.version);
    if (!listed) return { problem: `${template.id} lists no version ${software.version}` };
    const value = resolveListed(template, software.version, software.build, listed);
    if ('problem' in value) return value;
    this.resolved.set(key, { from: listing, value });
    return value;
  }
}

const pick = (a: { sha256?: string; sha1?: string; size?: number }) => ({
  ...(a.sha256 ? { sha256: a.sha256 } : {}), ...(a.sha1 ? { sha1: a.sha1 } : {}), ...(a.size !== undefined ? { size: a.size } : {}),
});

function resolveListed(template: Template, version: string, build: string | undefined, listed: ListedVersionRecord): ResolvedSoftware | { problem: string } {
  const java = listed.java ?? template.java;
  if (template.install.source === 'builtin') {
    return { template: { ...template, versions: [version], ...(java ? { java } : {}) } };
  }
  if (template.install.source === 'tree') return { problem: `${template.id}: a tree install is made by the Controller, never read from a template file` };
  if (runsInstaller(template)) return resolveInstallerChoice(template, version, build, listed);
  let download = listed.download;
  let buildId = build ?? listed.latestBuild;
  if (listed.builds) {
    const chosen = listed.builds.find((b) => b.id === (build ?? listed.latestBuild ?? listed.builds![0]?.id));
    if (!chosen) return { problem: `${template.id} ${version} lists no build ${build ?? '(none)'}` };
    download = chosen.download;
    buildId = chosen.id;
  } else if (build !== undefined && build !== listed.latestBuild) {
    return { problem: `${template.id} ${version} lists no build ${build}` };
  }
  if (!download || (!download.sha256 && !download.sha1)) return { problem: `${template.id} ${version}${buildId ? ` build ${buildId}` : ''} has no verifiable download` };
  const artifact = { ...pick(download), ...(buildId ? { build: buildId } : {}) };
  const gameJar = template.install.source === 'upstream' ? template.install.gameJar : undefined;
  if (gameJar && !listed.download?.sha1 && !listed.download?.sha256) return { problem: `${template.id} ${version} lists no verifiable server jar of the game` };
  // A loader's launcher runs the game's own server jar (Fabric): it is installed beside it.
  const gameJarDownload = gameJar ? listed.download : undefined;
  const install = {
    source: 'download' as const, file: template.install.file, artifacts: { [version]: artifact },
    ...(gameJar && gameJarDownload ? { companions: [{ file: gameJar, ...pick(gameJarDownload) }] } : {}),
  };
  return {
    template: { ...template, versions: [version], ...(java ? { java } : {}), install },
    ...(buildId ? { build: buildId } : {}),
    download,
    ...(gameJarDownload ? { companions: [gameJarDownload] } : {}),
  };
}
