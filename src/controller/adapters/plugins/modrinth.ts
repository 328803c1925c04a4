import { createHash } from 'node:crypto';
import type { FeedPlugin, FeedVersion } from '../../schemas/catalog-feed.js';

/**
 * Modrinth API v2 → catalog feed. Input: the projects (`GET /v2/projects?ids=[...]`) and each
 * project's versions (`GET /v2/project/{id}/version`). Only fields the feed needs are typed.
 */
export interface ModrinthProject {
  id: string;
  slug: string;
  title: string;
  description: string;
  project_type: string;
  downloads: number;
  updated: string;
  license: { id: string; name: string; url?: string | null };
}

export interface ModrinthFile {
  hashes: { sha1?: string; sha512?: string };
  url: string;
  filename: string;
  primary: boolean;
  size: number;
}

export interface ModrinthVersion {
  id: string;
  project_id: string;
  version_number: string;
  game_versions: string[];
  loaders: string[];
  date_published: string;
  status?: string;
  dependencies: { version_id: string | null; project_id: string | null; file_name?: string | null; dependency_type: 'required' | 'optional' | 'incompatible' | 'embedded' }[];
  files: ModrinthFile[];
}

/**
 * Modrinth publishes sha1 and sha512 but not the sha256 the feed uses: the adapter asks for it.
 * `downloadSha256` is the production answer (download, check sha512, hash); tests pass a table.
 */
export type Sha256Of = (file: ModrinthFile) => Promise<string>;

export async function downloadSha256(file: ModrinthFile): Promise<string> {
  const res = await fetch(file.url, { signal: AbortSignal.timeout(120_000) });
  if (!res.ok) throw new Error(`${file.url} answered ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const sha512 = createHash('sha512').update(bytes).digest('hex');
  if (file.hashes.sha512 && sha512 !== file.hashes.sha512) throw new Error(`${file.url}: sha512 ${sha512} is not the ${file.hashes.sha512} Modrinth lists`);
  return createHash('sha256').update(bytes).digest('hex');
}

const primaryFile = (v: ModrinthVersion) => v.files.find((f) => f.primary) ?? v.files.at(0);

/** Listed versions with a file; required dependencies named by project (or by a version whose project is known). */
export async function modrinthToFeed(projects: ModrinthProject[], versionsByProject: Record<string, ModrinthVersion[]>, sha256Of: Sha256Of = downloadSha256): Promise<FeedPlugin[]> {
  const projectOfVersion = new Map(Object.values(versionsByProject).flat().map((v) => [v.id, v.project_id]));
  const plugins: FeedPlugin[] = [];
  for (const project of projects) {
    const versions: FeedVersion[] = [];
    for (const v of versionsByProject[project.id] ?? []) {
      const file = primaryFile(v);
      if (!file || (v.status !== undefined && v.status !== 'listed')) continue;
      const dependencies = [...new Set(v.dependencies
        .filter((d) => d.dependency_type === 'required')
        .map((d) => d.project_id ?? (d.version_id ? projectOfVersion.get(d.version_id) : undefined))
        .filter((id): id is string => id !== undefined && id !== project.id)
        .map((id) => `modrinth:${id}`))];
      versions.push({
        versionId: v.id, version: v.version_number, platforms: v.loaders.map((l) => l.toLowerCase()), gameVersions: v.game_versions,
        dependencies, publishedAt: v.date_published,
        download: { url: file.url, sha256: await sha256Of(file), size: file.size },
      });
    }
    plugins.push({
      id: `modrinth:${project.id}`, source: 'modrinth', slug: project.slug, name: project.title, summary: project.description,
      license: project.license.id, downloads: project.downloads, url: `https://modrinth.com/${project.project_type}/${project.slug}`,
      updated: project.updated, versions,
    });
  }
  return plugins;
}
