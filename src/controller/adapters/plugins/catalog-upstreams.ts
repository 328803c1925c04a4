import type { CatalogBases } from '../software/upstream-sources.js';
import { FeedPlugin, FeedVersion } from '../../schemas/catalog-feed.js';
import { jsonAjv } from '../../schemas/validators.js';
import { readHangar } from './hangar-sync.js';
import { readModrinth } from './modrinth-sync.js';

/** The public sources the catalog syncs from when no `--catalog-source` is given. */
export const upstreamCatalogSources = ['modrinth', 'hangar'] as const;
export type UpstreamCatalogSource = (typeof upstreamCatalogSources)[number];

export interface UpstreamRead {
  /** Plugins of the sources that answered. */
  plugins: FeedPlugin[];
  answered: UpstreamCatalogSource[];
  unavailable: { source: UpstreamCatalogSource; reason: string }[];
  /** Versions (or whole projects) left out because a field broke the feed's bounds. */
  skipped: number;
}

const validVersion = jsonAjv.compile<FeedVersion>(FeedVersion);
const validPlugin = jsonAjv.compile<FeedPlugin>(FeedPlugin);

const readers: Record<UpstreamCatalogSource, (base: string) => Promise<FeedPlugin[]>> = { modrinth: readModrinth, hangar: readHangar };

/**
 * Reads Modrinth and Hangar side by side. One project with a field the feed cannot hold (a version
 * name over 64 characters) loses that version, not the sync; a source that fails is reported, and
 * the caller decides what stands in for it.
 */
export async function readUpstreams(bases: CatalogBases): Promise<UpstreamRead> {
  const read: UpstreamRead = { plugins: [], answered: [], unavailable: [], skipped: 0 };
  const seen = new Set<string>();
  const outcomes = await Promise.allSettled(upstreamCatalogSources.map((source) => readers[source](bases[source])));
  for (const [i, outcome] of outcomes.entries()) {
    const source = upstreamCatalogSources[i];
    if (outcome.status === 'rejected') {
      read.unavailable.push({ source, reason: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) });
      continue;
    }
    read.answered.push(source);
    for (const plugin of outcome.value) {
      const versions = plugin.versions.filter((v) => validVersion(v));
      read.skipped += plugin.versions.length - versions.length;
      const kept = { ...plugin, versions };
      if (seen.has(kept.id) || !validPlugin(kept)) {
        read.skipped += 1;
        continue;
      }
      seen.add(kept.id);
      read.plugins.push(kept);
    }
  }
  return read;
}
