import { Cluster } from '../../schemas/cluster.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const clusterRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/cluster', tag: 'nodes', status: 200,
    summary: 'The Controllers sharing this store, each with where it listens and how many Nodes it drives.',
    description: 'Needs a global administrator. On the embedded store the one Controller; on MongoDB every live one (docs/scaling.md).',
    response: Cluster,
    handler: async ({ caller }) => s.clusterView.get(caller),
  }),
];
