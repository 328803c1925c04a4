import Type, { type Static } from 'typebox';
import { templateIdPattern } from '../../shared/templates.js';
import { DateTime, pageQueryFields } from './common.js';
import { InstallerOutput } from './installer-output.js';
import { ModpackLoader } from './modpacks.js';

const JavaNeed = Type.Object({
  minimum: Type.Integer({ minimum: 8, maximum: 99, description: 'The lowest Java feature release (major) the version runs on.' }),
});

export const VersionBuild = Type.Object({
  id: Type.String({ description: 'The upstream\'s build number, as `software.build`.' }),
  channel: Type.String({ description: 'The upstream\'s channel: `STABLE`, `BETA`, `ALPHA` (PaperMC).' }),
  sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  size: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const TemplateVersion = Type.Object({
  version: Type.String(),
  type: Type.Optional(Type.String({ description: 'Mojang\'s version type (`release`).' })),
  java: Type.Optional(JavaNeed),
  latestBuild: Type.Optional(Type.String({ description: 'The newest build (PaperMC): what a server gets when it names no build.' })),
  builds: Type.Optional(Type.Array(VersionBuild, { description: 'Newest first.' })),
  name: Type.Optional(Type.String({ description: 'A modpack version\'s own name (Modrinth\'s `version_number`).' })),
  game: Type.Optional(Type.String({ description: 'The game version a modpack version runs.' })),
  loader: Type.Optional(ModpackLoader),
});

export const TemplateVersionsQuery = Type.Object({
  ...pageQueryFields,
  project: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', description: 'The Modrinth project (slug) whose versions to list: required for `modrinth`, refused for the others.' })),
}, { additionalProperties: false });

export const TemplateParams = Type.Object({ templateId: Type.String({ minLength: 1, maxLength: 64, pattern: templateIdPattern }) }, { additionalProperties: false });

export const SoftwareSyncResult = Type.Object({
  sources: Type.Array(Type.Object({
    source: Type.String({ description: '`papermc:<project>`, `mojang` or `fabric`.' }),
    ok: Type.Boolean(),
    versionCount: Type.Integer({ minimum: 0 }),
    syncedAt: Type.Optional(DateTime),
    error: Type.Optional(Type.String({ description: 'Why the sync failed; the last good list stays in use.' })),
  })),
});

/** Where the Controller fetches one artifact: the download the upstream lists, with its checksums. */
export const ArtifactDownload = Type.Object({
  url: Type.String(),
  sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  sha1: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}$' })),
  size: Type.Optional(Type.Integer({ minimum: 0 })),
  /** When the upstream publishes no checksum: when the Controller took the sha256 of its first download (Fabric's launcher). */
  pinnedAt: Type.Optional(DateTime),
});

/**
 * A build as synced: what the API shows and where its artifact is; as offered, an installer's
 * build (NeoForge, Forge) carries what the Controller's run of it left, once it ran.
 */
export const ListedBuild = Type.Intersect([VersionBuild, Type.Object({ download: ArtifactDownload, installed: Type.Optional(InstallerOutput) })]);

/**
 * A version as the Controller keeps it after a sync: what `GET /templates/{id}/versions` shows,
 * and the downloads behind it (a build's for PaperMC, the version's own for Mojang).
 */
export const ListedVersion = Type.Object({
  version: Type.String(),
  type: Type.Optional(Type.String()),
  java: Type.Optional(JavaNeed),
  latestBuild: Type.Optional(Type.String()),
  builds: Type.Optional(Type.Array(ListedBuild)),
  /** The version's own download; for Fabric, Mojang's server jar the loader's launcher runs. */
  download: Type.Optional(ArtifactDownload),
  /** Fabric: the installer version whose server launcher the builds download. */
  installer: Type.Optional(Type.String()),
});

export type TemplateVersionView = Static<typeof TemplateVersion>;
export type ListedVersionRecord = Static<typeof ListedVersion>;
export type ArtifactDownloadSpec = Static<typeof ArtifactDownload>;
export type SoftwareSyncResultView = Static<typeof SoftwareSyncResult>;
