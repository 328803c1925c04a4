import type { DenyEntry, FeedPlugin, FeedVersion } from '../schemas/catalog-feed.js';
import type { PluginInstallationView } from '../schemas/plugins.js';
import { denialOf, isCompatible, newestFirst, type PluginTarget } from './plugin-compat.js';

/** What dependency resolution reads of the catalog. */
export interface CatalogLookup {
  plugin(pluginId: string): FeedPlugin | undefined;
  readonly denylist: readonly DenyEntry[];
}

/**
 * An installation as resolution sees it: which plugin, whether it came as a dependency, and what it
 * requires (the record keeps it; the API shows the reverse, `requiredBy`).
 */
export type InstalledPlugin = Pick<PluginInstallationView, 'pluginId' | 'dependency'> & { requires: readonly string[] };

export interface PlannedPlugin {
  pluginId: string;
  plugin: FeedPlugin;
  version: FeedVersion;
  /** False when only `force` let an incompatible version in. */
  compatibilityConfirmed: boolean;
  /** True for plugins pulled in because another requires them. */
  dependency: boolean;
  requires: string[];
}

export type ResolutionFailure = 'unknown_plugin' | 'unknown_version' | 'incompatible' | 'denied' | 'missing_dependency';

/** Why a plan cannot be made; `pluginId` names the plugin at fault (the requested one or a dependency). */
export class PluginResolutionError extends Error {
  override name = 'PluginResolutionError';
  constructor(readonly failure: ResolutionFailure, readonly pluginId: string, message: string) {
    super(message);
  }
}

export interface VersionRequest {
  pluginId: string;
  versionId?: string;
  force: boolean;
  target: PluginTarget;
}

const describeTarget = (t: PluginTarget) => `${t.platform} ${t.gameVersion}`;

/**
 * The version to install: the named one (refused when denied, or incompatible without force), or
 * the newest compatible version that is not denied; with force and none compatible, the newest
 * version that is not denied.
 */
export function chooseVersion(catalog: CatalogLookup, plugin: FeedPlugin, request: Omit<VersionRequest, 'pluginId'>, requiredBy?: string): { version: FeedVersion; compatible: boolean } {
  const what = requiredBy ? `${plugin.id} (required by ${requiredBy})` : plugin.id;
  const denied = (v: FeedVersion) => denialOf(catalog.denylist, plugin.id, v);
  if (request.versionId !== undefined) {
    const version = plugin.versions.find((v) => v.versionId === request.versionId);
    if (!version) throw new PluginResolutionError('unknown_version', plugin.id, `${plugin.id} has no version ${request.versionId}.`);
    const denial = denied(version);
    if (denial) throw new PluginResolutionError('denied', plugin.id, `${plugin.id} ${version.version} is denylisted: ${denial.reason}`);
    const compatible = isCompatible(version, request.target);
    if (!compatible && !request.force) {
      throw new PluginResolutionError('incompatible', plugin.id, `${what} ${version.version} does not support ${describeTarget(request.target)}; pass force to install it anyway.`);
    }
    return { version, compatible };
  }
  const ordered = newestFirst(plugin.versions);
  const compatible = ordered.filter((v) => isCompatible(v, request.target));
  const allowed = compatible.find((v) => !denied(v));
  if (allowed) return { version: allowed, compatible: true };
  if (compatible.length > 0 && !request.force) {
    throw new PluginResolutionError('denied', plugin.id, `Every version of ${what} that supports ${describeTarget(request.target)} is denylisted.`);
  }
  if (!request.force) {
    throw new PluginResolutionError('incompatible', plugin.id, `No version of ${what} supports ${describeTarget(request.target)}; pass force to install the newest anyway.`);
  }
  const newest = ordered.find((v) => !denied(v));
  if (!newest) throw new PluginResolutionError('denied', plugin.id, `Every version of ${what} is denylisted.`);
  return { version: newest, compatible: false };
}

/**
 * The required plugins that `roots` pull in and the server does not have yet, breadth first.
 * A plugin already installed or already planned satisfies every later requirement of it, which
 * is what makes diamonds install once and cycles end.
 */
export function resolveDependencies(catalog: CatalogLookup, roots: readonly PlannedPlugin[], installedIds: ReadonlySet<string>, request: Omit<VersionRequest, 'pluginId' | 'versionId'>): PlannedPlugin[] {
  const planned = new Map(roots.map((r) => [r.pluginId, r]));
  const queue = [...roots];
  const added: PlannedPlugin[] = [];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const dependencyId of current.requires) {
      if (installedIds.has(dependencyId) || planned.has(dependencyId)) continue;
      const plugin = catalog.plugin(dependencyId);
      if (!plugin) {
        throw new PluginResolutionError('missing_dependency', dependencyId, `${current.pluginId} ${current.version.version} requires ${dependencyId}, which is not in the catalog.`);
      }
      const { version, compatible } = chooseVersion(catalog, plugin, { force: request.force, target: request.target }, current.pluginId);
      const next: PlannedPlugin = { pluginId: plugin.id, plugin, version, compatibilityConfirmed: compatible, dependency: true, requires: [...version.dependencies] };
      planned.set(plugin.id, next);
      added.push(next);
      queue.push(next);
    }
  }
  return added;
}

/** Installing `pluginId`: the plugin itself first, then every dependency the server lacks. */
export function planInstall(catalog: CatalogLookup, installed: readonly InstalledPlugin[], request: VersionRequest): PlannedPlugin[] {
  const plugin = catalog.plugin(request.pluginId);
  if (!plugin) throw new PluginResolutionError('unknown_plugin', request.pluginId, `The catalog has no plugin ${request.pluginId}.`);
  const { version, compatible } = chooseVersion(catalog, plugin, request);
  const root: PlannedPlugin = { pluginId: plugin.id, plugin, version, compatibilityConfirmed: compatible, dependency: false, requires: [...version.dependencies] };
  const installedIds = new Set(installed.map((i) => i.pluginId));
  return [root, ...resolveDependencies(catalog, [root], installedIds, request)];
}

/** Plugin ids of installed plugins that require `pluginId`, sorted. */
export const requiredBy = (installed: readonly InstalledPlugin[], pluginId: string): string[] =>
  installed.filter((i) => i.pluginId !== pluginId && i.requires.includes(pluginId)).map((i) => i.pluginId).sort();

/** Every plugin reachable from the explicitly installed ones through requirements, never passing `without`. */
function kept(installed: readonly InstalledPlugin[], without?: string): Set<string> {
  const byId = new Map(installed.map((i) => [i.pluginId, i]));
  const seen = new Set<string>();
  const stack = installed.filter((i) => !i.dependency && i.pluginId !== without).map((i) => i.pluginId);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || id === without) continue;
    seen.add(id);
    for (const next of byId.get(id)?.requires ?? []) stack.push(next);
  }
  return seen;
}

/** Dependencies nothing kept requires any more (e.g. after an update dropped a requirement). */
export const orphanedDependencies = (installed: readonly InstalledPlugin[]): string[] => {
  const keep = kept(installed);
  return installed.filter((i) => i.dependency && !keep.has(i.pluginId)).map((i) => i.pluginId);
};

export type RemovalPlan = { blockedBy: string[] } | { remove: string[] };

/**
 * Removing `pluginId`: refused while a plugin that stays requires it; otherwise it goes together
 * with every dependency nothing else still needs. A plugin that only its own dependencies require
 * (a cycle) does not block itself.
 */
export function planRemoval(installed: readonly InstalledPlugin[], pluginId: string): RemovalPlan {
  const keep = kept(installed, pluginId);
  const blockedBy = installed.filter((i) => keep.has(i.pluginId) && i.requires.includes(pluginId)).map((i) => i.pluginId).sort();
  if (blockedBy.length > 0) return { blockedBy };
  return { remove: [pluginId, ...installed.filter((i) => i.pluginId !== pluginId && i.dependency && !keep.has(i.pluginId)).map((i) => i.pluginId)] };
}
