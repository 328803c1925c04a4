import Type, { type Static } from 'typebox';
import { ArtifactSetRef } from './artifact-set.js';

/**
 * A service template: what the Controller offers as `software.template` and everything an Agent
 * needs to install and run it. One JSON file per template, `templates/<id>.json`.
 * Shared by the Controller (catalog, API) and the Agent (installer, supervisor).
 */

export const templateIdPattern = '^[a-z0-9][a-z0-9-]*$';

/**
 * The placeholders a run command, its environment and managed config values may use. `{cpus}` is
 * the reservation's CPU in whole processors, rounded up, at least 1 (500m: 1, 1500m: 2): in the
 * box a JVM finds no container limits, so the Java templates pass it as `-XX:ActiveProcessorCount`.
 */
export const templatePlaceholders = [
  'java', 'node', 'serverDir', 'cairnDir', 'memoryMb', 'heapMb', 'cpus', 'port', 'bindAddress', 'version',
] as const;
export type TemplatePlaceholder = (typeof templatePlaceholders)[number];
export type PlaceholderValues = Record<TemplatePlaceholder, string>;

export const builtinPrograms = ['simcraft', 'simproxy'] as const;
export type BuiltinProgram = (typeof builtinPrograms)[number];

const VersionString = Type.String({ minLength: 1, maxLength: 64 });
/** A plain file name inside `.cairn`: no directories, nothing hidden. */
const CairnFileName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' });
/** A relative path inside the server's directory. */
/**
 * A path inside the server's directory, `/`-separated: no `..` or `.` segment (no segment starts
 * with a dot), no empty segment, nothing absolute, nothing in `.cairn`.
 */
const ServerRelativePath = Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$' });

export const BuiltinInstall = Type.Object({
  source: Type.Literal('builtin'),
  /** A program shipped with Cairn itself (`src/sim/`). */
  program: Type.Enum(builtinPrograms),
  /** The launcher the Agent writes into `.cairn`; `run` names it. */
  file: CairnFileName,
}, { additionalProperties: false });

export const DownloadArtifact = Type.Object({
  /**
   * Where the Controller fetches it (once, into its artifact store). Agents never download: they
   * fetch every artifact from the Controller over the link, by checksum. Absent in the templates
   * the Controller sends, and in those it resolves from an upstream's listing.
   */
  url: Type.Optional(Type.String({ pattern: '^https://', maxLength: 2048 })),
  /** At least one checksum: the vendor's sha256 where it publishes one, else its sha1 (Mojang). */
  sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  sha1: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}$' })),
  /** Bytes, when the vendor publishes it; a download of another size is refused before hashing. */
  size: Type.Optional(Type.Integer({ minimum: 1 })),
  /** The vendor's build of this version, reported as `software.build`. */
  build: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });

export const DownloadInstall = Type.Object({
  source: Type.Literal('download'),
  /** Where the verified artifact goes inside `.cairn`. */
  file: CairnFileName,
  /** One artifact per entry of `versions`, keyed by version. */
  artifacts: Type.Record(Type.String(), DownloadArtifact),
  /**
   * Artifacts installed beside `file` in `.cairn`, each under its own name: what the one artifact
   * needs to run without the internet (Fabric's launcher: Mojang's server jar).
   */
  companions: Type.Optional(Type.Array(Type.Object({
    file: CairnFileName,
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
    sha1: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}$' })),
    size: Type.Optional(Type.Integer({ minimum: 1 })),
  }, { additionalProperties: false }), { maxItems: 8 })),
}, { additionalProperties: false });

/**
 * The artifact comes from the upstream that lists the template's versions (`versions.source`); the
 * Controller resolves version and build to the download the upstream lists and sends the Agent a
 * `download` install with that one artifact.
 */
export const UpstreamInstall = Type.Object({
  source: Type.Literal('upstream'),
  file: CairnFileName,
  /**
   * For an upstream whose builds are loaders of a game version (Fabric): where the version's own
   * download, the game's server jar, goes beside `file` (the run command points the loader at it).
   */
  gameJar: Type.Optional(CairnFileName),
  /**
   * The download is an installer the Controller runs (NeoForge, Forge): the Agent gets its output
   * as a `tree`, and the start arguments it names go before the last of `run.args` (`nogui`).
   */
  installer: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

/**
 * Software the Controller produced by running an installer (NeoForge, Forge): its output, a set of
 * files installed under `.cairn` at their paths, named by the set's manifest (`artifact-set.ts`).
 * Only in the templates the Controller sends; `run` points into the tree.
 */
export const TreeInstall = Type.Object({
  source: Type.Literal('tree'),
  tree: ArtifactSetRef,
  /** The vendor's build (the loader version), reported as `software.build`. */
  build: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false });

export const SeedFile = Type.Object({
  path: ServerRelativePath,
  content: Type.String({ maxLength: 4096 }),
}, { additionalProperties: false });

export const TemplateInstall = Type.Union([BuiltinInstall, DownloadInstall, UpstreamInstall, TreeInstall]);

export const TemplateRun = Type.Object({
  command: Type.String({ minLength: 1 }),
  args: Type.Array(Type.String()),
  env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z_][A-Z0-9_]*$' }), Type.String(), { additionalProperties: false })),
  /** `{heapMb}` is this share of `{memoryMb}`: a JVM needs room beyond its heap inside the reservation. */
  heapPercent: Type.Optional(Type.Integer({ minimum: 10, maximum: 100 })),
}, { additionalProperties: false });

export const TemplateConfig = Type.Object({
  /** Relative to the server's directory. */
  file: ServerRelativePath,
  format: Type.Union([Type.Literal('properties'), Type.Literal('simproxy-json'), Type.Literal('velocity-toml')]),
  /**
   * Keys the Agent owns and writes before every start (values may use placeholders); operators
   * cannot set them (`managed_property`). For a proxy the routes are managed as a whole.
   */
  managed: Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String()),
}, { additionalProperties: false });

const ConfigKey = Type.String({ minLength: 1, maxLength: 100 });

/** How the software takes part in a network (see `src/agent/network/network-settings.ts`). */
export const TemplateNetwork = Type.Object({
  /**
   * Members only: entries of `config.file` Cairn writes at every start as a member (e.g. Paper's
   * `online-mode=false`: the proxy authenticates players); operators cannot set them then.
   */
  memberConfig: Type.Optional(Type.Record(ConfigKey, Type.String())),
  /**
   * Members only: what the same keys become at the first start after leaving the network, so a
   * server players reach directly authenticates them again; then they are the operator's.
   */
  standaloneConfig: Type.Optional(Type.Record(ConfigKey, Type.String())),
  /**
   * Where the network's modern-forwarding secret goes: `paper-global-yaml`, a member's
   * `proxies.velocity` section (switched off again after it leaves), or `secret-file`, the file a
   * proxy reads it from.
   */
  forwardingSecret: Type.Optional(Type.Object({
    file: ServerRelativePath,
    format: Type.Union([Type.Literal('paper-global-yaml'), Type.Literal('secret-file')]),
  }, { additionalProperties: false })),
  /**
   * Proxies only: a console command that makes the running proxy re-read its config after the
   * routes changed (Velocity: `velocity reload`); without one the proxy watches the file itself.
   */
  reloadCommand: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\r\\n]+$' })),
}, { additionalProperties: false });

/** One console line the Agent types (no line breaks). */
const ConsoleCommandText = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\r\\n]+$' });

/**
 * How the running software is made to hold still for a consistent copy of its files (a backup, a
 * migration): the Agent types `quiesce` in order, waits for a console line matching `waitFor`
 * (printed after the last of them) for at most `timeoutSeconds`, and types `resume` when the copy
 * is done, or when the wait failed. Minecraft: `save-off`, `save-all flush`, `Saved the game`, `save-on`.
 */
export const TemplateBackup = Type.Object({
  quiesce: Type.Array(ConsoleCommandText, { minItems: 1, maxItems: 10 }),
  /** Matched like `readyPattern` against each console line after the last quiesce command. */
  waitFor: Type.String({ minLength: 1, maxLength: 500 }),
  resume: Type.Array(ConsoleCommandText, { maxItems: 10 }),
  timeoutSeconds: Type.Integer({ minimum: 1, maximum: 600 }),
}, { additionalProperties: false });

export const versionSources = ['papermc', 'mojang', 'fabric', 'neoforge', 'forge', 'modrinth'] as const;
export type VersionSource = (typeof versionSources)[number];

/**
 * Versions listed by an upstream, synced by the Controller: PaperMC's Fill v3 (a project), Mojang's
 * manifest (releases), Fabric's meta API v2 (stable game versions, loaders as builds), the Maven
 * metadata of NeoForge and Forge (game versions, loader versions as builds), or Modrinth's API v2
 * (a modpack's versions, asked for per pack).
 */
export const UpstreamVersions = Type.Object({
  source: Type.Enum(versionSources),
  /** The PaperMC project (`paper`, `folia`, `velocity`); none for the other sources. */
  project: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: templateIdPattern })),
}, { additionalProperties: false });

/** `minecraft-slp`: the Server List Ping on the game port (Paper, Velocity, vanilla and the sims answer it). */
export const TemplateStatus = Type.Object({
  protocol: Type.Literal('minecraft-slp'),
}, { additionalProperties: false });

/** The Java a version needs: the lowest feature release (major) it runs on. */
export const TemplateJava = Type.Object({
  minimum: Type.Integer({ minimum: 8, maximum: 99 }),
}, { additionalProperties: false });

export const TemplateFile = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: templateIdPattern }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  kind: Type.Union([Type.Literal('GAME_SERVER'), Type.Literal('PROXY')]),
  networkMember: Type.Boolean(),
  platform: Type.String({ minLength: 1, maxLength: 64, pattern: templateIdPattern }),
  /** A fixed list, newest first (the first is the default), or the upstream that lists them. */
  versions: Type.Union([Type.Array(VersionString, { minItems: 1, uniqueItems: true }), UpstreamVersions]),
  /**
   * The Java `{java}` must be at least; an upstream's listing overrides it per version (the
   * Controller writes the version's into the template it sends). Absent: any Java.
   */
  java: Type.Optional(TemplateJava),
  install: TemplateInstall,
  /** Files written into the server's directory at install when absent (never overwritten). */
  seedFiles: Type.Optional(Type.Array(SeedFile)),
  /**
   * A modpack's files, placed into the server's directory at their paths at every install (mods,
   * configs), named by the set's manifest. Only in the templates the Controller sends. The Agent
   * keeps the list of what it placed, and removes what the last pack placed and this one does not.
   */
  pack: Type.Optional(ArtifactSetRef),
  run: TemplateRun,
  /** Matched against each stdout line (no line end, not anchored): the first match means RUNNING. */
  readyPattern: Type.String({ minLength: 1, maxLength: 500 }),
  stopCommand: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\r\\n]+$' }),
  /** After the stop command, how long before SIGTERM (and as long again before SIGKILL). */
  stopTimeoutSeconds: Type.Integer({ minimum: 1, maximum: 600 }),
  config: TemplateConfig,
  network: Type.Optional(TemplateNetwork),
  /** Without it a running server is copied as it is (e.g. a proxy, which keeps no world). */
  backup: Type.Optional(TemplateBackup),
  /** How the Agent asks a running server for its players; absent: it does not ask. */
  status: Type.Optional(TemplateStatus),
  /**
   * Where the template comes in the new-server form among those that can install now, lower
   * first (default 100): the one most operators want comes first, not the first by name.
   */
  order: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  /**
   * The software refuses to run until `eula.txt` says `eula=true` (Mojang's EULA): the first
   * start asks the operator to accept it.
   */
  eula: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export type Template = Static<typeof TemplateFile>;
export type TemplateBackupSpec = NonNullable<Template['backup']>;
export type DownloadArtifactSpec = Static<typeof DownloadArtifact>;
export type UpstreamVersionsSpec = Static<typeof UpstreamVersions>;

/** The template's own list of versions (newest first); undefined when an upstream lists them. */
export function fixedVersions(template: Template): string[] | undefined {
  return Array.isArray(template.versions) ? template.versions : undefined;
}

const placeholderRe = /\{([A-Za-z]+)\}/g;

/** Placeholder names used in a text, known or not. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(placeholderRe)].map((m) => m[1]);
}

export function expandPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(placeholderRe, (whole, name: string) =>
    (templatePlaceholders as readonly string[]).includes(name) ? values[name as TemplatePlaceholder] : whole);
}

/** `{heapMb}` from the reservation and the template's heap share. */
export function heapMb(template: Template, memoryMb: number): number {
  return Math.max(1, Math.floor((memoryMb * (template.run.heapPercent ?? 100)) / 100));
}

export interface ResolvedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The process to spawn (cwd: the server's directory), each argument expanded on its own: no shell. */
export function resolveRunCommand(template: Template, values: PlaceholderValues): ResolvedCommand {
  const expand = (s: string) => expandPlaceholders(s, values);
  return {
    command: expand(template.run.command),
    args: template.run.args.map(expand),
    env: Object.fromEntries(Object.entries(template.run.env ?? {}).map(([k, v]) => [k, expand(v)])),
  };
}

/** The managed config entries with their values for this start. */
export function resolveManagedConfig(template: Template, values: PlaceholderValues): Record<string, string> {
  return Object.fromEntries(Object.entries(template.config.managed).map(([k, v]) => [k, expandPlaceholders(v, values)]));
}
