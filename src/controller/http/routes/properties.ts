import { PropertiesChange, PropertiesChanged, PropertiesView } from '../../schemas/operations.js';
import { ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const propertyRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/servers/{serverId}/properties', tag: 'properties', status: 200,
    summary: 'The settings in the server\'s server.properties (an absent file has none).',
    params: ServerParams, response: PropertiesView, errors: ['node_unavailable'],
    handler: async ({ caller, params }) => s.properties.get(caller, params.serverId),
  }),
  route({
    method: 'PATCH', path: '/servers/{serverId}/properties', tag: 'properties', status: 200,
    summary: 'Set or remove keys of server.properties; they apply at the server\'s next start.',
    description: 'Comments, blank lines, order, line endings and untouched keys stay byte for byte; changed keys are rewritten in place, new ones appended, with java.util.Properties escaping. The file is created if absent. Audited with the keys. '
      + 'Refused with `phase_busy` while the server is MIGRATING, RESTORING, UPDATING or DELETING: those move or replace its files, and a change made meanwhile could be lost.',
    params: ServerParams, body: PropertiesChange, response: PropertiesChanged, errors: ['managed_property', 'phase_busy', 'node_unavailable'],
    audit: { action: 'server.properties.update', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.properties.patch(caller, params.serverId, body, audit),
  }),
];
