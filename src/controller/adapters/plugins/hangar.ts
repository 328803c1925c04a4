import type { FeedPlugin, FeedVersion } from '../../schemas/catalog-feed.js';

/**
 * Hangar API v1 → catalog feed. Input per project: `GET /api/v1/projects/{slug}` and the
 * `result` of `GET /api/v1/projects/{slug}/versions`. Only fields the feed needs are typed.
 */
export interface HangarProject {
  id: number;
  name: string;
  namespace: { owner: string; slug: string };
  stats: { downloads: number };
  description: string;
  lastUpdated: string;
  settings: { license: { name: string | null; type: string | null; url?: string | null } };
}

export interface HangarDownload {
  fileInfo: { name: string; sizeBytes: number; sha256Hash: string } | null;
  externalUrl: string | null;
  downloadUrl: string | null;
}

export interface HangarPluginDependency {
  name: string;
  projectId?: number | null;
  required: boolean;
  externalUrl: string | null;
  platform: string;
}

export interface HangarVersion {
  id?: number;
  name: string;
  createdAt: string;
  visibility?: string;
  downloads: Record<string, HangarDownload>;
  pluginDependencies: Record<string, HangarPluginDependency[]>;
  platformDependencies: Record<string, string[]>;
}

export interface HangarEntry {
  project: HangarProject;
  versions: HangarVersion[];
}

/**
 * One feed version per distinct jar: Hangar may publish a different file for each platform
 * (Paper, Velocity, Waterfall), and a feed version has one download. Externally hosted files
 * (no checksum) are left out. Required Hangar-hosted dependencies become `hangar:<slug>`.
 */
export function hangarToFeed(entries: HangarEntry[]): FeedPlugin[] {
  const slugById = new Map(entries.map((e) => [e.project.id, e.project.namespace.slug]));
  const slugByName = new Map(entries.map((e) => [e.project.name.toLowerCase(), e.project.namespace.slug]));
  return entries.map(({ project, versions }) => {
    const slug = project.namespace.slug;
    const out: FeedVersion[] = [];
    for (const v of versions) {
      if (v.visibility !== undefined && v.visibility !== 'public') continue;
      const byHash = new Map<string, { platforms: string[]; download: HangarDownload }>();
      for (const [platform, download] of Object.entries(v.downloads)) {
        if (!download.fileInfo || !download.downloadUrl) continue;
        const group = byHash.get(download.fileInfo.sha256Hash) ?? { platforms: [], download };
        group.platforms.push(platform);
        byHash.set(download.fileInfo.sha256Hash, group);
      }
      const base = String(v.id ?? v.name);
      for (const { platforms, download } of byHash.values()) {
        const dependencies = [...new Set(platforms.flatMap((p) => v.pluginDependencies[p] ?? [])
          .filter((d) => d.required && d.externalUrl === null)
          .map((d) => (d.projectId != null ? slugById.get(d.projectId) : undefined) ?? slugByName.get(d.name.toLowerCase()) ?? d.name.toLowerCase())
          .filter((s) => s !== slug)
          .map((s) => `hangar:${s}`))];
        out.push({
          versionId: byHash.size === 1 ? base : `${base}-${platforms.map((p) => p.toLowerCase()).join('+')}`,
          version: v.name,
          platforms: platforms.map((p) => p.toLowerCase()),
          gameVersions: [...new Set(platforms.flatMap((p) => v.platformDependencies[p] ?? []))],
          dependencies, publishedAt: v.createdAt,
          download: { url: download.downloadUrl!, sha256: download.fileInfo!.sha256Hash.toLowerCase(), size: download.fileInfo!.sizeBytes },
        });
      }
    }
    return {
      id: `hangar:${slug}`, source: 'hangar', slug, name: project.name, summary: project.description,
      license: project.settings.license.type ?? project.settings.license.name ?? 'Unspecified', downloads: project.stats.downloads,
      url: `https://hangar.papermc.io/${project.namespace.owner}/${slug}`, updated: project.lastUpdated, versions: out,
    };
  });
}
