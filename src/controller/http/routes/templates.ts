import { PageQuery, Paged } from '../../schemas/common.js';
import { PackSearchQuery, PackSearchResult } from '../../schemas/modpacks.js';
import { SoftwareSyncResult, TemplateParams, TemplateVersion, TemplateVersionsQuery } from '../../schemas/software.js';
import { TemplateSummary } from '../../schemas/templates.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const templateRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/templates', tag: 'templates', status: 200,
    summary: 'Service templates a server can run, ordered by id (any signed-in user).', query: PageQuery, response: Paged(TemplateSummary),
    handler: async ({ query }) => s.templates.list(query),
  }),
  route({
    method: 'GET', path: '/templates/{templateId}/versions', tag: 'templates', status: 200,
    summary: 'The versions a server of the template can run, newest first (any signed-in user).',
    description: 'Fixed for built-in templates; for `papermc`, `mojang` and `fabric` templates, as last synced from the upstream (or the snapshot shipped with Cairn until a sync succeeds). '
      + 'For `modrinth`, one project\'s pack versions (`project` required) as Modrinth lists them now, each with `name`, `game` and `loader`; when Modrinth cannot be read the last good list stays, and `upstream_unavailable` when there is none.',
    params: TemplateParams, query: TemplateVersionsQuery, response: Paged(TemplateVersion), errors: ['upstream_unavailable'],
    handler: async ({ params, query }) => s.templateVersions.versions(params.templateId, query),
  }),
  route({
    method: 'GET', path: '/templates/modrinth/packs', tag: 'templates', status: 200,
    summary: 'Modrinth\'s modpacks matching the words, in Modrinth\'s order (any signed-in user).',
    description: 'Asked of Modrinth\'s search (`project_type:modpack`) each time; `upstream_unavailable` when it cannot be read. A pack\'s versions: `GET /templates/modrinth/versions?project=<slug>`.',
    query: PackSearchQuery, response: PackSearchResult, errors: ['upstream_unavailable'],
    handler: async ({ query }) => s.modpacks.search(query.query, query.limit),
  }),
  route({
    method: 'POST', path: '/software/sync', tag: 'templates', status: 200,
    summary: 'Sync the versions of every upstream now (global administrators).',
    description: 'Each source answers on its own: one that cannot be read keeps its last good list and says why in `error`. Versions also sync at start and every 6 hours.',
    response: SoftwareSyncResult,
    audit: { action: 'software.sync', targetKind: 'software' },
    handler: async ({ caller, audit }) => s.software.sync(caller, audit),
  }),
];
