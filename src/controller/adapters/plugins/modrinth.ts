import type { FeedPlugin, FeedVersion } from '../../schemas/catalog-feed.js';

/**
 * Modrinth API v2 → catalog feed. Input: the projects (`GET /v2/projects?ids=[...]`) and their
 * versions (`GET /v2/versions?ids=[...]` or `GET /v2/project/{id}/version`). Only fields the feed needs are typed.
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
  /** Every version id of the project, oldest first. */
  versions: string[];
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

const primaryFile = (v: ModrinthVersion) => v.files.find((f) => f.primary) ?? v.files.at(0);

/**
 * Listed versions with a file; required dependencies named by project (or by a version whose
 * project is known). Modrinth publishes sha1 and sha512, not the sha256 Cairn keeps jars by: the
 * feed carries the sha512, and the jar is checked against it and given its sha256 when it is first
 * installed (adapters/plugins/sha512-jar.ts), so a sync downloads no jars.
 */
export function modrinthToFeed(projects: ModrinthProject[], versionsByProject: Record<string, ModrinthVersion[]>): FeedPlugin[] {
  const projectOfVersion = new Map(Object.values(versionsByProject).flat().map((v) => [v.id, v.project_id]));
  const plugins: FeedPlugin[] = [];
  for (const project of projects) {
    const versions: FeedVersion[] = [];
    for (const v of versionsByProject[project.id] ?? []) {
      const file = primaryFile(v);
      const sha512 = file?.hashes.sha512?.toLowerCase();
      if (!file || !sha512 || (v.status !== undefined && v.status !== 'listed')) continue;
      const dependencies = [...new Set(v.dependencies
        .filter((d) => d.dependency_type === 'required')
        .map((d) => d.project_id ?? (d.version_id ? projectOfVersion.get(d.version_id) : undefined))
        .filter((id): id is string => id !== undefined && id !== project.id)
        .map((id) => `modrinth:${id}`))];
      versions.push({
        versionId: v.id, version: v.version_number, platforms: v.loaders.map((l) => l.toLowerCase()), gameVersions: v.game_versions,
        dependencies, publishedAt: v.date_published,
        download: { url: file.url, sha512, size: file.size },
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
