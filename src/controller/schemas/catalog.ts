import Type from 'typebox';
import { DateTime, Defaulted, Paged } from './common.js';
import { maxCursorLength } from '../core/cursor-limit.js';

/** A catalog plugin id, `<source>:<id>` (URL-encode the colon or not: both arrive the same). */
export const CatalogPluginId = Type.String({ minLength: 3, maxLength: 161, pattern: '^[^:\\s]+:\\S+$', description: 'A catalog plugin id, `<source>:<id>`.' });

export const CatalogPluginParams = Type.Object({ pluginId: CatalogPluginId }, { additionalProperties: false });

export const CatalogListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive text found in the name, slug or summary.' })),
  platform: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Keep plugins with a version for this platform (e.g. `paper`, which also loads Spigot and Bukkit plugins).' })),
  gameVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Keep plugins with a version for this game version (with `platform`: the same version must suit both).' })),
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200 (default 50).' })),
  cursor: Type.Optional(Type.String({ maxLength: maxCursorLength, description: 'The nextCursor of the previous page.' })),
}, { additionalProperties: false });

const listItemFields = {
  id: Type.String({ description: '`<source>:<id>`.' }),
  source: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  summary: Type.String(),
  license: Type.String(),
  downloads: Type.Integer({ minimum: 0 }),
  url: Type.String({ description: 'The project page at its source.' }),
  updated: DateTime,
};

export const CatalogPluginItem = Type.Object(listItemFields);

export const Denial = Type.Object({ reason: Type.String(), link: Type.Optional(Type.String()) });

export const CatalogVersion = Type.Object({
  versionId: Type.String(),
  version: Type.String(),
  platforms: Type.Array(Type.String()),
  gameVersions: Type.Array(Type.String()),
  dependencies: Type.Array(Type.String(), { description: 'Plugin ids this version requires.' }),
  publishedAt: DateTime,
  denied: Type.Optional(Denial),
});

/** Every catalog answer says whether the shipped sample is what it shows. */
const sampleField = { sample: Type.Boolean({ description: 'True while the shipped sample catalog (placeholder jars, made-up download counts) stands in because no source has answered yet.' }) };

export const CatalogPluginPage = Type.Object({ ...Paged(CatalogPluginItem).properties, ...sampleField });

export const CatalogPluginDetail = Type.Object({ ...listItemFields, ...sampleField, versions: Type.Array(CatalogVersion, { description: 'Newest first.' }) });

export const CatalogSyncResult = Type.Object({
  source: Type.String({ description: 'The feed file or URL read; `modrinth+hangar` (the public sources that answered); or `sample`.' }),
  syncedAt: DateTime,
  pluginCount: Type.Integer({ minimum: 0 }),
  denylistCount: Type.Integer({ minimum: 0 }),
  changed: Type.Boolean({ description: 'False when the feed was the same as the catalog already held.' }),
  ...sampleField,
  unavailable: Type.Optional(Type.Array(Type.Object({ source: Type.String(), reason: Type.String() }), { description: 'Public sources that did not answer; each keeps the plugins it gave last time.' })),
});
