import { PageQuery, Paged } from '../../schemas/common.js';
import { TemplateSummary } from '../../schemas/templates.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const templateRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/templates', tag: 'templates', status: 200,
    summary: 'Service templates a server can run, ordered by id (any signed-in user).', query: PageQuery, response: Paged(TemplateSummary),
    handler: async ({ query }) => s.templates.list(query),
  }),
];
