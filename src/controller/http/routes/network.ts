import { Network, UpdateNetwork } from '../../schemas/network.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const networkRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/network', tag: 'network', status: 200,
    summary: 'The network: where players connect.', response: Network,
    handler: async () => s.network.get(),
  }),
  route({
    method: 'PATCH', path: '/network', tag: 'network', status: 200,
    summary: 'Change the network record (global administrators).', body: UpdateNetwork, response: Network,
    audit: { action: 'network.update', targetKind: 'network' },
    handler: async ({ caller, body, audit }) => s.network.update(caller, body, audit),
  }),
];
