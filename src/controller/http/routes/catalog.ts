import { CatalogListQuery, CatalogPluginDetail, CatalogPluginPage, CatalogPluginParams, CatalogSyncResult } from '../../schemas/catalog.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const catalogRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/catalog/plugins', tag: 'plugins', status: 200,
    summary: 'Plugins and mods of the synced catalog, most downloaded first (any signed-in user); `sample` says whether the shipped sample stands in.',
    description: '`search` matches name, slug or summary, case-insensitively; `platform` and `gameVersion` keep plugins that have a matching version. Ties in downloads are ordered by id. `limit` is 1 to 200, default 50.',
    query: CatalogListQuery, response: CatalogPluginPage,
    handler: async ({ query }) => s.catalog.list(query),
  }),
  route({
    method: 'GET', path: '/catalog/plugins/{pluginId}', tag: 'plugins', status: 200,
    summary: 'One catalog plugin with its versions, newest first; denylisted versions carry `denied`.',
    description: 'The id contains a colon (`modrinth:AANobbMI`); URL-encode it in the path.',
    params: CatalogPluginParams, response: CatalogPluginDetail,
    handler: async ({ params }) => s.catalog.get(params.pluginId),
  }),
  route({
    method: 'POST', path: '/catalog/sync', tag: 'plugins', status: 200,
    summary: 'Sync the catalog from its sources now (global administrators).',
    description: 'Without `--catalog-source` the catalog is Modrinth and Hangar; when neither answers and no real catalog is held, the shipped sample stands in (`source: "sample"`, `sample: true`). A source that cannot be read, or a feed that is not valid, answers `catalog_sync_failed` and the last good catalog stays in use. The catalog also syncs at start and every `--catalog-sync-minutes` (default 60).',
    response: CatalogSyncResult, errors: ['catalog_sync_failed'],
    audit: { action: 'catalog.sync', targetKind: 'catalog' },
    handler: async ({ caller, audit }) => s.catalog.sync(caller, audit),
  }),
];
