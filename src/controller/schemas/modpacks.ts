import Type from 'typebox';

/** The loader a modpack version runs on, as its `.mrpack` `dependencies` name it: one of the loader templates and its version. */
export const ModpackLoader = Type.Object({
  template: Type.String({ description: 'The loader template: `fabric`, `neoforge` or `forge`.' }),
  build: Type.String({ description: 'The loader version, as `software.build` of that template.' }),
});

/** What a version item of `GET /templates/modrinth/versions?project=<slug>` adds to TemplateVersion. */
export const modpackVersionFields = {
  name: Type.Optional(Type.String({ description: 'Modrinth templates: the pack version\'s `version_number`, for people (`version` is `<slug>:<version id>`).' })),
  game: Type.Optional(Type.String({ description: 'Modrinth templates: the Minecraft version the pack version runs.' })),
  loader: Type.Optional(ModpackLoader),
};

export const ModpackSearchItem = Type.Object({
  slug: Type.String({ description: 'The project\'s slug: the part of `software.version` before the colon.' }),
  title: Type.String(),
  description: Type.String(),
  downloads: Type.Integer({ minimum: 0 }),
  gameVersions: Type.Array(Type.String()),
  loaders: Type.Array(Type.String()),
  iconUrl: Type.Optional(Type.String()),
});

/** `GET /templates/modrinth/packs?query=&limit=`: Modrinth's modpack search, in Modrinth's order. */
export const ModpackSearch = Type.Object({ items: Type.Array(ModpackSearchItem) });

/** Server detail `modpack`: present when `software.template` is `modrinth` and the Controller has read that pack version. */
export const ServerModpack = Type.Object({
  project: Type.String({ description: 'The project\'s slug.' }),
  title: Type.Optional(Type.String()),
  versionId: Type.String(),
  versionName: Type.String(),
  game: Type.String(),
  loader: ModpackLoader,
});
