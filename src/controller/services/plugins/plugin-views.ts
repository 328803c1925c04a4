import type { CatalogIndex } from '../../domain/catalog-index.js';
import { denialOf, isNewer, newestCompatible, type PluginTarget } from '../../domain/plugin-compat.js';
import { requiredBy } from '../../domain/plugin-deps.js';
import type { PluginInstallationDoc } from '../../store/records.js';

/**
 * The API's Plugin installation. `requiredBy`, `denied` and `updateAvailable` are derived on
 * every read, from the server's other installations and the catalog in use, so a sync that
 * denylists an installed version or publishes a newer one shows at once.
 */
export function installationView(doc: PluginInstallationDoc, all: readonly PluginInstallationDoc[], catalog: CatalogIndex, target: PluginTarget | undefined) {
  const denial = denialOf(catalog.denylist, doc.pluginId, { versionId: doc.catalogVersionId, version: doc.version });
  const plugin = doc.source === 'CATALOG' ? catalog.plugin(doc.pluginId) : undefined;
  const newest = plugin && target ? newestCompatible(plugin, target, catalog.denylist) : undefined;
  const update = newest && plugin && isNewer(newest, catalog.version(doc.pluginId, doc.catalogVersionId)) ? newest : undefined;
  return {
    id: doc._id,
    pluginId: doc.pluginId,
    name: doc.name,
    source: doc.source,
    version: doc.version,
    ...(doc.catalogVersionId !== undefined ? { catalogVersionId: doc.catalogVersionId } : {}),
    verified: doc.verified,
    compatibilityConfirmed: doc.compatibilityConfirmed,
    dependency: doc.dependency,
    requiredBy: requiredBy(all, doc.pluginId),
    ...(denial ? { denied: { reason: denial.reason, ...(denial.link ? { link: denial.link } : {}) } } : {}),
    ...(update ? { updateAvailable: { versionId: update.versionId, version: update.version } } : {}),
    fileName: doc.fileName,
    sha256: doc.sha256,
    sizeBytes: doc.sizeBytes,
    installedAt: doc.installedAt,
    updatedAt: doc.updatedAt,
  };
}

const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100) || 'plugin';

/**
 * The file names the jars get in `plugins/` on the Node: `<name>-<version>.jar`, made safe, and
 * made unique per server (a second jar with the same name gets the installation id's start).
 */
export function nodeFileNames(installations: readonly PluginInstallationDoc[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const doc of [...installations].sort((a, b) => (a._id < b._id ? -1 : 1))) {
    let name = `${safe(doc.name)}-${safe(doc.version)}.jar`;
    if (taken.has(name.toLowerCase())) name = `${safe(doc.name)}-${safe(doc.version)}-${doc._id.slice(0, 8)}.jar`;
    taken.add(name.toLowerCase());
    names.set(doc._id, name);
  }
  return names;
}
