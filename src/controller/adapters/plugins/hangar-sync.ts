import type { FeedPlugin } from '../../schemas/catalog-feed.js';
import { fetchCatalogJson } from './catalog-http.js';
import { hangarToFeed, type HangarEntry, type HangarProject, type HangarVersion } from './hangar.js';

/** The most downloaded Hangar projects read. */
export const hangarProjects = 100;
/** Hangar pages hold at most 25 items. */
const pageSize = 25;
/** The newest versions read of each project. */
export const hangarVersionsPerProject = 10;
/** Hangar has no bulk versions endpoint: a few project requests at a time, not a hundred at once. */
const concurrency = 4;

interface Page<T> {
  result: T[];
}

/** The catalog's Hangar part from API v1: projects by downloads (4 pages), then each project's newest versions. */
export async function readHangar(base: string): Promise<FeedPlugin[]> {
  const root = base.replace(/\/+$/, '');
  const projects: HangarProject[] = [];
  for (let offset = 0; offset < hangarProjects; offset += pageSize) {
    const page = await fetchCatalogJson(`${root}/projects?sort=-downloads&limit=${pageSize}&offset=${offset}`) as Page<HangarProject>;
    projects.push(...page.result);
    if (page.result.length < pageSize) break;
  }
  const entries: HangarEntry[] = [];
  const queue = [...projects];
  const worker = async () => {
    for (let project = queue.shift(); project; project = queue.shift()) {
      const slug = encodeURIComponent(project.namespace.slug);
      const versions = await fetchCatalogJson(`${root}/projects/${slug}/versions?limit=${hangarVersionsPerProject}&offset=0`) as Page<HangarVersion>;
      entries.push({ project, versions: versions.result });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return hangarToFeed(projects.map((p) => entries.find((e) => e.project === p)!));
}
