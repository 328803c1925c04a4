import { ModrinthSearch, ModrinthVersions, type ModrinthSearchHit, type ModrinthVersion } from '../../schemas/modrinth-answers.js';
import { checkedAnswer } from './checked-answer.js';
import { fetchUpstreamJson } from './upstream-http.js';

const root = (base: string) => base.replace(/\/+$/, '');

/** Modrinth API v2 `GET /project/{slug}/version`: a project's versions, newest first. */
export async function listProjectVersions(base: string, slug: string, signal?: AbortSignal): Promise<ModrinthVersion[]> {
  const url = `${root(base)}/project/${encodeURIComponent(slug)}/version`;
  return checkedAnswer(ModrinthVersions, await fetchUpstreamJson(url, signal), url);
}

/** Modrinth API v2 `GET /search` among modpacks, in Modrinth's order. */
export async function searchModpacks(base: string, query: string, limit: number, signal?: AbortSignal): Promise<ModrinthSearchHit[]> {
  const params = new URLSearchParams({ query, facets: JSON.stringify([['project_type:modpack']]), limit: String(limit) });
  const url = `${root(base)}/search?${params.toString()}`;
  return checkedAnswer(ModrinthSearch, await fetchUpstreamJson(url, signal), url).hits;
}
