import { compareGameVersions } from '../../../shared/game-versions.js';
import type { ListedVersionRecord } from '../../schemas/software.js';
import { FillBuilds, FillVersions, type FillBuildsAnswer } from '../../schemas/upstream-listings.js';
import pMap from 'p-map';
import { checkedAnswer } from './checked-answer.js';
import { fetchUpstreamJson } from './upstream-http.js';

/** Builds kept per version: older ones are rarely asked for, and every Controller holds the listing in memory. */
export const buildsKept = 25;
const parallelRequests = 4;
const serverDownload = 'server:default';

type ListedBuilds = NonNullable<ListedVersionRecord['builds']>;

/**
 * A PaperMC project's versions from Fill v3 (`base` is the `/v3` root): one request for the
 * versions with their Java and build ids, then the builds of each version whose newest build is
 * not the one already held. Versions without a server download are left out.
 */
export async function listPaperProject(base: string, project: string, previous: readonly ListedVersionRecord[], signal?: AbortSignal): Promise<ListedVersionRecord[]> {
  const root = `${base.replace(/\/+$/, '')}/projects/${encodeURIComponent(project)}`;
  const url = `${root}/versions`;
  const answer = checkedAnswer(FillVersions, await fetchUpstreamJson(url, signal), url);
  const held = new Map(previous.map((v) => [v.version, v]));
  const listed = await pMap(answer.versions, async ({ version, builds }): Promise<ListedVersionRecord | undefined> => {
    const newest = builds.length ? String(Math.max(...builds)) : undefined;
    if (!newest) return undefined;
    const java = version.java?.version?.minimum;
    const before = held.get(version.id);
    const known = before?.builds?.[0]?.id === newest ? before.builds : await fetchBuilds(`${root}/versions/${encodeURIComponent(version.id)}/builds`, signal);
    if (!known.length) return undefined;
    const latest = known.find((b) => b.channel === 'STABLE') ?? known[0];
    return { version: version.id, ...(java ? { java: { minimum: java } } : {}), latestBuild: latest.id, builds: known };
  }, { concurrency: parallelRequests });
  return listed.filter((v): v is ListedVersionRecord => v !== undefined).sort((a, b) => compareGameVersions(b.version, a.version));
}

async function fetchBuilds(url: string, signal?: AbortSignal): Promise<ListedBuilds> {
  const builds: FillBuildsAnswer = checkedAnswer(FillBuilds, await fetchUpstreamJson(url, signal), url);
  return builds
    .filter((b) => serverDownload in b.downloads)
    .sort((a, b) => b.id - a.id)
    .slice(0, buildsKept)
    .map((b) => {
      const d = b.downloads[serverDownload];
      return {
        id: String(b.id), channel: b.channel, sha256: d.checksums.sha256, ...(d.size !== undefined ? { size: d.size } : {}),
        download: { url: d.url, sha256: d.checksums.sha256, ...(d.size !== undefined ? { size: d.size } : {}) },
      };
    });
}
