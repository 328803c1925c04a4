import Type, { type Static } from 'typebox';

/**
 * The parts of upstream answers Cairn reads, checked before use; anything else they hold is
 * ignored, so an upstream adding fields breaks nothing.
 */

/** Fill v3 `GET /v3/projects/{project}/versions`: every version with its Java and build ids, newest first. */
export const FillVersions = Type.Object({
  versions: Type.Array(Type.Object({
    version: Type.Object({
      id: Type.String({ minLength: 1, maxLength: 64 }),
      java: Type.Optional(Type.Object({ version: Type.Optional(Type.Object({ minimum: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })) })) })),
    }),
    builds: Type.Array(Type.Integer({ minimum: 0 })),
  })),
});

/** Fill v3 `GET /v3/projects/{project}/versions/{version}/builds`: newest first. */
export const FillBuilds = Type.Array(Type.Object({
  id: Type.Integer({ minimum: 0 }),
  channel: Type.String({ maxLength: 32 }),
  downloads: Type.Record(Type.String(), Type.Object({
    name: Type.Optional(Type.String()),
    checksums: Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) }),
    size: Type.Optional(Type.Integer({ minimum: 0 })),
    url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
  })),
}));

/** piston-meta `version_manifest_v2.json`. */
export const MojangManifest = Type.Object({
  versions: Type.Array(Type.Object({
    id: Type.String({ minLength: 1, maxLength: 64 }),
    type: Type.String({ maxLength: 32 }),
    url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
    sha1: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}$' })),
  })),
});

/** One version's JSON from piston-meta: its server download and the Java it needs. */
export const MojangVersion = Type.Object({
  downloads: Type.Object({
    server: Type.Optional(Type.Object({
      sha1: Type.String({ pattern: '^[0-9a-f]{40}$' }),
      size: Type.Optional(Type.Integer({ minimum: 0 })),
      url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
    })),
  }),
  javaVersion: Type.Optional(Type.Object({ majorVersion: Type.Integer({ minimum: 1, maximum: 99 }) })),
});

export type FillBuildsAnswer = Static<typeof FillBuilds>;

/** Fabric meta v2 `GET /v2/versions/game`: every game version Fabric supports, newest first. */
export const FabricGameVersions = Type.Array(Type.Object({
  version: Type.String({ minLength: 1, maxLength: 64 }),
  stable: Type.Boolean(),
}));

/**
 * Fabric meta v2 `GET /v2/versions/loader` and `GET /v2/versions/installer`: every loader (or
 * installer) version, newest first, each `stable` or not.
 */
export const FabricComponentVersions = Type.Array(Type.Object({
  version: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9.+_-]*$' }),
  stable: Type.Boolean(),
}));
