import type { CatalogPluginDetail, CatalogPluginItem } from './api-types.js';
import type { CliClient } from './client.js';
import { ApiError, CliError } from './errors.js';

/** A plugin of an apply file, looked up in the catalog: its full id and, when the file names one, its version. */
export interface ResolvedPlugin {
  pluginId: string;
  /** The catalog version (its id and its version text); absent for the newest compatible one. */
  version?: { id: string; label: string };
}

/**
 * A catalog plugin id from what a file names: a full id (`sample:luckperms`, it has a colon) as
 * it is, or a slug (`luckperms`) when exactly one catalog plugin has it. The catalog's search
 * also matches names and summaries, so only exact slugs count.
 */
async function pluginIdOf(client: CliClient, named: string): Promise<string> {
  if (named.includes(':')) return named;
  const slug = named.toLowerCase();
  const matches = (await client.all<CatalogPluginItem>('/catalog/plugins', { search: named })).filter((p) => p.slug.toLowerCase() === slug);
  if (matches.length === 1) return matches[0].id;
  if (matches.length === 0) throw new CliError(`no catalog plugin has the slug "${named}" (name one by its id, e.g. source:slug)`);
  throw new CliError(`plugin slug "${named}" is ambiguous: ${matches.map((p) => p.id).join(', ')} have it; name one by its id`);
}

/** Looks up every plugin the file names, before anything is changed, so a wrong one refuses the whole server. */
export async function resolvePlugins(client: CliClient, wanted: { pluginId: string; version?: string }[]): Promise<ResolvedPlugin[]> {
  const resolved: ResolvedPlugin[] = [];
  for (const want of wanted) {
    const pluginId = await pluginIdOf(client, want.pluginId);
    let plugin: CatalogPluginDetail;
    try {
      plugin = await client.get<CatalogPluginDetail>(`/catalog/plugins/${encodeURIComponent(pluginId)}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) throw new CliError(`plugin ${pluginId} is not in the catalog`);
      throw e;
    }
    if (want.version === undefined) {
      resolved.push({ pluginId });
      continue;
    }
    const found = plugin.versions.find((v) => v.versionId === want.version) ?? plugin.versions.find((v) => v.version === want.version);
    if (!found) throw new CliError(`plugin ${pluginId} has no version "${want.version}" in the catalog`);
    resolved.push({ pluginId, version: { id: found.versionId, label: found.version } });
  }
  return resolved;
}
