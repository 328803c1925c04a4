import Type, { type Static } from 'typebox';

/**
 * The shape of the catalog feed (adapters/plugins/feed.ts reads and checks it; docs/plugins.md
 * describes it). Here, with the API's schemas, because the domain's plugin rules name its types and
 * the domain never imports adapters/.
 */

/** Largest jar a feed may list: the same bound as an upload. */
export const maxJarBytes = 64 * 1024 * 1024;

export const Sha256Hex = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lower-case hex SHA-256 of the jar.' });
/** `<source>:<id>`: the source in lower case, then the id the source gives the project. */
export const pluginIdPattern = '^[a-z0-9][a-z0-9-]{0,31}:[A-Za-z0-9._~-]{1,128}$';
export const PluginId = Type.String({ pattern: pluginIdPattern, maxLength: 161 });

const Text = (maxLength: number) => Type.String({ maxLength });

export const FeedVersion = Type.Object({
  versionId: Type.String({ minLength: 1, maxLength: 128 }),
  version: Type.String({ minLength: 1, maxLength: 64 }),
  platforms: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 32 }),
  gameVersions: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 512 }),
  /** Plugin ids this version requires (optional dependencies are not listed). */
  dependencies: Type.Array(PluginId, { maxItems: 64 }),
  publishedAt: Type.String({ format: 'date-time' }),
  /** At least one of sha256 and sha512 (feed.ts checks): a jar listed by sha512 only gets its sha256 when first installed. */
  download: Type.Object({
    url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^(https?|file):' }),
    sha256: Type.Optional(Sha256Hex),
    sha512: Type.Optional(Type.String({ pattern: '^[0-9a-f]{128}$', description: 'Lower-case hex SHA-512 of the jar.' })),
    size: Type.Integer({ minimum: 1, maximum: maxJarBytes }),
  }),
});

export const FeedPlugin = Type.Object({
  id: PluginId,
  source: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,31}$' }),
  slug: Type.String({ minLength: 1, maxLength: 128 }),
  name: Type.String({ minLength: 1, maxLength: 128 }),
  summary: Text(1024),
  license: Text(128),
  downloads: Type.Integer({ minimum: 0 }),
  url: Type.String({ maxLength: 2048 }),
  updated: Type.String({ format: 'date-time' }),
  versions: Type.Array(FeedVersion, { maxItems: 2000 }),
});

export const DenyEntry = Type.Object({
  pluginId: PluginId,
  /** Names one version; without versionId and version the entry denies every version. */
  versionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  reason: Type.String({ minLength: 1, maxLength: 1024 }),
  link: Type.Optional(Type.String({ maxLength: 2048 })),
});

export const CatalogFeed = Type.Object({
  plugins: Type.Array(FeedPlugin, { maxItems: 100_000 }),
  denylist: Type.Array(DenyEntry, { maxItems: 100_000 }),
});

export type FeedVersion = Static<typeof FeedVersion>;
export type FeedPlugin = Static<typeof FeedPlugin>;
export type DenyEntry = Static<typeof DenyEntry>;
export type CatalogFeed = Static<typeof CatalogFeed>;
