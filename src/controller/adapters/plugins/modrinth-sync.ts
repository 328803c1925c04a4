import type { FeedPlugin } from '../../schemas/catalog-feed.js';
import { fetchCatalogJson } from './catalog-http.js';
import { modrinthToFeed, type ModrinthProject, type ModrinthVersion } from './modrinth.js';

/** The most downloaded projects read of each kind (plugins; server-side mods for the loaders Cairn runs): one search page each. */
export const modrinthProjectsPerKind = 100;
/** The newest versions read of each project: enough for the game versions servers run, few enough for a handful of requests. */
export const modrinthVersionsPerProject = 10;
/** Ids per bulk request (`/projects?ids=`, `/versions?ids=`): keeps each URL near 3 KB. */
const idsPerRequest = 200;

/** The loaders whose mods the catalog covers (Cairn's templates: fabric, neoforge, forge). */
export const modLoaders = ['fabric', 'neoforge', 'forge'] as const;

const kinds: string[][][] = [
  [['project_type:plugin']],
  [['project_type:mod'], modLoaders.map((l) => `categories:${l}`), ['server_side:required', 'server_side:optional']],
];

interface SearchAnswer {
  hits: { project_id: string }[];
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const idsParam = (ids: readonly string[]) => encodeURIComponent(JSON.stringify(ids));

/**
 * The catalog's Modrinth part from API v2: a search per kind sorted by downloads, the projects in
 * bulk, then the newest versions of each in bulk — 2 + 1 + ~10 requests for 200 projects, no jar
 * downloaded (see modrinthToFeed for the checksums).
 */
export async function readModrinth(base: string): Promise<FeedPlugin[]> {
  const root = base.replace(/\/+$/, '');
  const ids = new Set<string>();
  for (const facets of kinds) {
    const answer = await fetchCatalogJson(`${root}/search?facets=${encodeURIComponent(JSON.stringify(facets))}&index=downloads&limit=${modrinthProjectsPerKind}`) as SearchAnswer;
    for (const hit of answer.hits) ids.add(hit.project_id);
  }
  const projects: ModrinthProject[] = [];
  for (const part of chunks([...ids], idsPerRequest)) projects.push(...await fetchCatalogJson(`${root}/projects?ids=${idsParam(part)}`) as ModrinthProject[]);
  const versionIds = projects.flatMap((p) => p.versions.slice(-modrinthVersionsPerProject));
  const versionsByProject: Record<string, ModrinthVersion[]> = {};
  for (const part of chunks(versionIds, idsPerRequest)) {
    for (const v of await fetchCatalogJson(`${root}/versions?ids=${idsParam(part)}`) as ModrinthVersion[]) (versionsByProject[v.project_id] ??= []).push(v);
  }
  return modrinthToFeed(projects, versionsByProject);
}
