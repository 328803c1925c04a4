import type { ListedVersionRecord } from '../../schemas/software.js';
import { MojangManifest, MojangVersion } from '../../schemas/upstream-listings.js';
import pMap from 'p-map';
import { checkedAnswer } from './checked-answer.js';
import { fetchUpstreamJson } from './upstream-http.js';

const parallelRequests = 4;
/** Releases whose JSON names no Java predate the field; they run on Java 8. */
const oldestJava = 8;

/**
 * Mojang's releases from the piston-meta manifest (v2), newest first as it lists them, each with
 * its server download (sha1, size) and Java from the version's own JSON, fetched once: a
 * release's JSON does not change. Releases without a server download are left out.
 */
export async function listMojangReleases(manifestUrl: string, previous: readonly ListedVersionRecord[], signal?: AbortSignal): Promise<ListedVersionRecord[]> {
  const manifest = checkedAnswer(MojangManifest, await fetchUpstreamJson(manifestUrl, signal), manifestUrl);
  const held = new Map(previous.filter((v) => v.download).map((v) => [v.version, v]));
  const releases = manifest.versions.filter((v) => v.type === 'release');
  const listed = await pMap(releases, async (entry): Promise<ListedVersionRecord | undefined> => {
    const before = held.get(entry.id);
    if (before) return before;
    const detail = checkedAnswer(MojangVersion, await fetchUpstreamJson(entry.url, signal), entry.url);
    const server = detail.downloads.server;
    if (!server) return undefined;
    return {
      version: entry.id, type: 'release', java: { minimum: detail.javaVersion?.majorVersion ?? oldestJava },
      download: { url: server.url, sha1: server.sha1, ...(server.size !== undefined ? { size: server.size } : {}) },
    };
  }, { concurrency: parallelRequests });
  return listed.filter((v): v is ListedVersionRecord => v !== undefined);
}
