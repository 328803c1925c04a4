import { AuditEvent, AuditQuery } from '../../schemas/audit.js';
import { Paged } from '../../schemas/common.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const auditRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/audit-events', tag: 'audit', status: 200,
    summary: 'Search the audit log, newest first (global administrators).',
    description: '`since` is inclusive, `until` exclusive. `limit` is 1 to 200, default 50.',
    query: AuditQuery, response: Paged(AuditEvent),
    handler: async ({ caller, query }) => s.audit.search(caller, query),
  }),
];
