import type { FeedPlugin } from '../schemas/catalog-feed.js';
import type { PluginInstallationView } from '../schemas/plugins.js';
import { compareGameVersions } from '../../shared/game-versions.js';
import { isCompatible, type PluginTarget } from './plugin-compat.js';
import type { ServerSoftware } from './server-spec.js';

/** Why an update to other software of the same template is refused before anything runs. */
export interface UpdateRefusal {
  code: 'invalid_request' | 'downgrade_refused';
  detail: string;
}

/**
 * The same version and build is no update; an older game version is refused unless the caller
 * says it means it, since a world saved by a newer version cannot be opened by an older one. A
 * new build of the same version is an update. No build named means the version's newest.
 */
export function updateRefusal(
  current: ServerSoftware, target: { version: string; build?: string }, allowDowngrade: boolean,
  // A modpack's version is no game version: the game version it runs is compared.
  gameOf: (software: ServerSoftware) => string = (s) => s.version,
): UpdateRefusal | undefined {
  if (target.version === current.version && (target.build === undefined || target.build === current.build)) {
    return { code: 'invalid_request', detail: `body.version: the server runs ${current.template} ${current.version}${current.build ? ` build ${current.build}` : ''} already.` };
  }
  const [to, from] = [gameOf({ ...current, ...target }), gameOf(current)];
  if (!allowDowngrade && compareGameVersions(to, from) < 0) {
    return {
      code: 'downgrade_refused',
      detail: `${to} is older than ${from}, which the server runs: a world saved by a newer version cannot be opened by an older one. Send allowDowngrade: true to try anyway (a failed start rolls back).`,
    };
  }
  return undefined;
}

/**
 * The installed catalog plugins the catalog offers no version of for the target (platform and
 * game version), by name. An uploaded jar declares nothing the Controller can check; a catalog
 * plugin the catalog no longer lists has no version known to suit, so it is named too.
 */
export function incompatiblePlugins(installed: readonly Pick<PluginInstallationView, 'pluginId' | 'name' | 'source'>[], pluginOf: (id: string) => FeedPlugin | undefined, target: PluginTarget): string[] {
  return installed
    .filter((p) => p.source === 'CATALOG')
    .filter((p) => !(pluginOf(p.pluginId)?.versions.some((v) => isCompatible(v, target)) ?? false))
    .map((p) => p.name);
}
