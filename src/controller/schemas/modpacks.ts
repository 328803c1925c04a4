import Type, { type Static } from 'typebox';
import { Defaulted } from './common.js';

export const ModpackLoader = Type.Object({
  template: Type.String({ description: 'The loader\'s template: `fabric`, `neoforge` or `forge`.' }),
  build: Type.Optional(Type.String({ description: 'The loader version the pack names; present once the Controller has read that pack version (Modrinth\'s listing does not say it).' })),
});

export const PackSearchQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 200, description: 'Words to search Modrinth\'s modpacks for; none: the most relevant packs.' })),
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'At most this many packs, 1 to 50.' })),
}, { additionalProperties: false });

export const PackSummary = Type.Object({
  slug: Type.String({ description: 'The project\'s slug: `software.version` is `<slug>:<version id>`.' }),
  title: Type.String(),
  description: Type.String(),
  downloads: Type.Integer({ minimum: 0 }),
  gameVersions: Type.Array(Type.String()),
  loaders: Type.Array(Type.String()),
  iconUrl: Type.Optional(Type.String()),
});

export const PackSearchResult = Type.Object({ items: Type.Array(PackSummary) });

/** On a server's detail: the pack version it runs, as the Controller read it. */
export const ServerModpack = Type.Object({
  project: Type.String({ description: 'The Modrinth project\'s slug.' }),
  title: Type.Optional(Type.String()),
  versionId: Type.String(),
  versionName: Type.String({ description: 'Modrinth\'s `version_number`.' }),
  game: Type.String({ description: 'The game version the pack names.' }),
  loader: Type.Object({ template: Type.String(), build: Type.String() }),
}, { description: 'Present when `software.template` is `modrinth` and the Controller has read that pack version.' });

export type PackSummaryView = Static<typeof PackSummary>;
export type ServerModpackView = Static<typeof ServerModpack>;
