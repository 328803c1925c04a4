import Type, { type Static } from 'typebox';

/**
 * The parts of Modrinth's API v2 answers and of a `.mrpack`'s `modrinth.index.json` Cairn reads,
 * checked before use (docs.modrinth.com: "Modrinth API v2", "Modpack format"); anything else
 * they hold is ignored.
 */

const Sha512 = Type.String({ pattern: '^[0-9a-f]{128}$' });
const Sha1 = Type.String({ pattern: '^[0-9a-f]{40}$' });
const Url = Type.String({ pattern: '^https?://', maxLength: 2048 });

/** `GET /v2/project/{slug}/version`: the project's versions, newest first. */
export const ModrinthVersions = Type.Array(Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9]{1,32}$' }),
  version_number: Type.String({ minLength: 1, maxLength: 200 }),
  game_versions: Type.Array(Type.String({ maxLength: 64 })),
  loaders: Type.Array(Type.String({ maxLength: 64 })),
  date_published: Type.Optional(Type.String({ maxLength: 64 })),
  files: Type.Array(Type.Object({
    url: Url,
    filename: Type.String({ maxLength: 400 }),
    primary: Type.Boolean(),
    hashes: Type.Object({ sha512: Type.Optional(Sha512), sha1: Type.Optional(Sha1) }),
    size: Type.Integer({ minimum: 0 }),
  })),
}), { maxItems: 10_000 });

/** `GET /v2/search`: the hits in Modrinth's order. */
export const ModrinthSearch = Type.Object({
  hits: Type.Array(Type.Object({
    slug: Type.String({ minLength: 1, maxLength: 64 }),
    title: Type.String({ maxLength: 256 }),
    description: Type.String({ maxLength: 2048 }),
    downloads: Type.Integer({ minimum: 0 }),
    versions: Type.Array(Type.String({ maxLength: 64 })),
    categories: Type.Array(Type.String({ maxLength: 64 })),
    icon_url: Type.Optional(Type.Union([Url, Type.Literal(''), Type.Null()])),
  })),
});

/** `modrinth.index.json` (format version 1). */
export const MrpackIndex = Type.Object({
  formatVersion: Type.Integer(),
  game: Type.String({ maxLength: 64 }),
  versionId: Type.Optional(Type.String({ maxLength: 200 })),
  name: Type.Optional(Type.String({ maxLength: 400 })),
  files: Type.Array(Type.Object({
    path: Type.String({ minLength: 1, maxLength: 400 }),
    hashes: Type.Object({ sha1: Sha1, sha512: Sha512 }),
    env: Type.Optional(Type.Object({
      client: Type.Optional(Type.String({ maxLength: 32 })),
      server: Type.Optional(Type.String({ maxLength: 32 })),
    })),
    downloads: Type.Array(Url, { minItems: 1, maxItems: 16 }),
    fileSize: Type.Integer({ minimum: 0 }),
  }), { maxItems: 20_000 }),
  dependencies: Type.Record(Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 64 })),
});

export type ModrinthVersion = Static<typeof ModrinthVersions>[number];
export type ModrinthSearchHit = Static<typeof ModrinthSearch>['hits'][number];
export type MrpackIndexFile = Static<typeof MrpackIndex>;
