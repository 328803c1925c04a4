import { createHash } from 'node:crypto';
import { CatalogFeedError, parseFeed } from '../../adapters/plugins/feed.js';
import { feedLocation, readFeedText, type FeedLocation } from '../../adapters/plugins/feed-source.js';
import { readUpstreams, type UpstreamRead } from '../../adapters/plugins/catalog-upstreams.js';
import { writeSampleCatalog } from '../../adapters/plugins/sample-catalog.js';
import type { CatalogBases } from '../../adapters/software/upstream-sources.js';
import type { CatalogIndex } from '../../domain/catalog-index.js';
import type { CatalogFeed } from '../../schemas/catalog-feed.js';

/** What one sync read: the feed, where from, and its checksum (to tell an unchanged feed). */
export interface SourcedFeed {
  feed: CatalogFeed;
  /** The feed file or URL; `modrinth+hangar` (the public sources that answered); or `sample`. */
  source: string;
  feedSha256: string;
  sample: boolean;
  /** Public sources that did not answer this time, with why. */
  unavailable?: UpstreamRead['unavailable'];
}

/** The source name that marks the shipped sample: in the store, the sync result and every catalog answer. */
export const sampleSource = 'sample';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Where the catalog comes from. With `--catalog-source` it is that one feed, as always. Without
 * it, Modrinth and Hangar: a source that does not answer keeps the plugins it gave last time, and
 * only when neither answers and no real catalog is held does the shipped sample stand in.
 */
export class CatalogSources {
  private readonly location?: FeedLocation;

  constructor(private readonly dataDir: string, source: string | undefined, private readonly bases: CatalogBases) {
    this.location = source === undefined ? undefined : feedLocation(source);
  }

  /** True when the public sources are read (no `--catalog-source`). */
  get upstream(): boolean {
    return this.location === undefined;
  }

  async read(current: CatalogIndex, currentIsSample: boolean): Promise<SourcedFeed> {
    if (this.location) return this.readFeed(this.location);
    const read = await readUpstreams(this.bases);
    if (read.answered.length === 0) {
      const reasons = read.unavailable.map((u) => `${u.source}: ${u.reason}`).join('; ');
      if (current.size > 0 && !currentIsSample) throw new CatalogFeedError(`no catalog source answered (${reasons})`);
      return { ...(await this.sample()), unavailable: read.unavailable };
    }
    const keptFrom = new Set<string>(currentIsSample ? [] : read.unavailable.map((u) => u.source));
    const feed: CatalogFeed = { plugins: [...read.plugins, ...current.feed.plugins.filter((p) => keptFrom.has(p.source))], denylist: [] };
    return {
      feed, source: read.answered.join('+'), feedSha256: sha256(JSON.stringify(feed)), sample: false,
      ...(read.unavailable.length > 0 ? { unavailable: read.unavailable } : {}),
    };
  }

  /** The shipped sample, rebuilt under the data dir (its jars are local files). */
  async sample(): Promise<SourcedFeed> {
    const { feed, feedSha256 } = await this.readFeed(feedLocation(await writeSampleCatalog(this.dataDir)));
    return { feed, source: sampleSource, feedSha256, sample: true };
  }

  private async readFeed(location: FeedLocation): Promise<SourcedFeed> {
    const text = await readFeedText(location);
    const feed = parseFeed(text);
    // Local jar URLs are for feeds on this machine (the sample, an offline mirror); a remote feed may not point into the Controller's disk.
    if (location.kind === 'url') refuseFileUrls(feed);
    return { feed, source: location.kind === 'url' ? location.url : location.path, feedSha256: sha256(text), sample: false };
  }
}

function refuseFileUrls(feed: CatalogFeed): void {
  for (const plugin of feed.plugins) {
    const local = plugin.versions.find((v) => v.download.url.startsWith('file:'));
    if (local) throw new CatalogFeedError(`feed: ${plugin.id} ${local.version} has a file: download URL, which only a feed read from a file may use`);
  }
}
