import { CatalogFeed } from '../../schemas/catalog-feed.js';
import { jsonAjv } from '../../schemas/validators.js';

/**
 * The catalog feed: the one JSON document Cairn syncs its plugin catalog from (a file or an
 * http(s) URL given with `--catalog-source`; the sample feed without it). Adapters for other
 * sources (Modrinth, Hangar) produce this same shape. Unknown fields are ignored, so a feed may
 * carry more than Cairn reads. See docs/plugins.md for the full description. Its shape is
 * schemas/catalog-feed.ts (the domain's plugin rules name its types); here it is read and checked.
 */

/** A feed Cairn cannot use; the message names the field. The last good catalog stays in use. */
export class CatalogFeedError extends Error {
  override name = 'CatalogFeedError';
}

const validate = jsonAjv.compile<CatalogFeed>(CatalogFeed);

/** Checks the shape, then what a schema cannot: ids match their source, no id or versionId twice. */
export function checkFeed(feed: unknown): CatalogFeed {
  if (!validate(feed)) {
    const e = validate.errors?.[0];
    throw new CatalogFeedError(`feed${e?.instancePath.replaceAll('/', '.') ?? ''}: ${e?.message ?? 'invalid'}`);
  }
  const ids = new Set<string>();
  for (const [i, plugin] of feed.plugins.entries()) {
    if (!plugin.id.startsWith(`${plugin.source}:`)) throw new CatalogFeedError(`feed.plugins.${i}.id: ${plugin.id} does not start with its source "${plugin.source}:"`);
    if (ids.has(plugin.id)) throw new CatalogFeedError(`feed.plugins.${i}.id: ${plugin.id} appears twice`);
    ids.add(plugin.id);
    const versionIds = new Set<string>();
    for (const version of plugin.versions) {
      if (!version.download.sha256 && !version.download.sha512) throw new CatalogFeedError(`feed.plugins.${i}: version ${version.versionId} has neither download.sha256 nor download.sha512`);
      if (versionIds.has(version.versionId)) throw new CatalogFeedError(`feed.plugins.${i}: versionId ${version.versionId} appears twice`);
      versionIds.add(version.versionId);
    }
  }
  return feed;
}

export function parseFeed(text: string): CatalogFeed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CatalogFeedError(`feed: not valid JSON (${(error as Error).message})`);
  }
  return checkFeed(value);
}
