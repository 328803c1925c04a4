import Type, { type Static } from 'typebox';
import { DateTime, Uuid, pageQueryFields } from './common.js';
import { CatalogPluginId, Denial } from './catalog.js';

export const InstallationParams = Type.Object({ serverId: Uuid, installationId: Uuid }, { additionalProperties: false });

export const InstallPlugin = Type.Object({
  pluginId: CatalogPluginId,
  versionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'A version of the plugin; default: the newest compatible one.' })),
  force: Type.Optional(Type.Boolean({ description: 'Install even when no version suits the server (`compatibilityConfirmed: false`).' })),
}, { additionalProperties: false });

export const UpdatePlugin = Type.Object({
  versionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Default: the newest compatible version.' })),
  force: Type.Optional(Type.Boolean({ description: 'Accept a version that does not suit the server.' })),
}, { additionalProperties: false });

export const UploadQuery = Type.Object({
  fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Display name of the jar; only its last path element is kept.' })),
}, { additionalProperties: false });

export const PluginListQuery = Type.Object(pageQueryFields, { additionalProperties: false });

export const PluginInstallation = Type.Object({
  id: Uuid,
  pluginId: Type.String({ description: 'Catalog plugin id, or `upload:<name>` for an uploaded jar.' }),
  name: Type.String(),
  source: Type.Enum(['CATALOG', 'UPLOAD']),
  version: Type.String(),
  catalogVersionId: Type.Optional(Type.String()),
  verified: Type.Boolean({ description: 'False for uploads.' }),
  compatibilityConfirmed: Type.Boolean({ description: 'False when installed with force, or when an upload.' }),
  dependency: Type.Boolean({ description: 'True when installed because another plugin requires it.' }),
  requiredBy: Type.Array(Type.String(), { description: 'Plugin ids of installed plugins that require this one.' }),
  denied: Type.Optional(Denial),
  updateAvailable: Type.Optional(Type.Object({ versionId: Type.String(), version: Type.String() })),
  fileName: Type.String({ description: 'The jar\'s display name.' }),
  sha256: Type.String(),
  sizeBytes: Type.Integer({ minimum: 0 }),
  installedAt: DateTime,
  updatedAt: DateTime,
});

export type PluginInstallationView = Static<typeof PluginInstallation>;
