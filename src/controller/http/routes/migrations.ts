import { IdParams } from '../../schemas/common.js';
import { DrainStarted, MigrateServer } from '../../schemas/migrations.js';
import { ServerDetail, ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const migrationRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/servers/{serverId}/migrate', tag: 'servers', status: 202,
    summary: 'Move the server to another Node with its files, plugins and properties; answers the server in phase MIGRATING.',
    description: 'Needs `servers.update` in the server\'s team and the global `nodes.manage`. The target must accept placements and have room '
      + '(`insufficient_capacity`); the server\'s own Node is `invalid_request`. `workflow.step` shows the progress (reserving, copying, '
      + 'stopping, syncing, switching, starting, cleaning); `nodeId` and `gamePort` change at the switch. A failure before the switch '
      + 'returns the server to READY on its Node, running again if it was, with a `MIGRATION_FAILED` condition.',
    params: ServerParams, body: MigrateServer, response: ServerDetail, errors: ['phase_busy', 'insufficient_capacity'],
    audit: { action: 'server.migrate', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.migrations.migrate(caller, params.serverId, body, audit),
  }),
  route({
    method: 'POST', path: '/nodes/{nodeId}/drain', tag: 'nodes', status: 202,
    summary: 'Disable the Node and migrate every READY server on it, one at a time, to the Node placement picks.',
    description: 'Needs the global `nodes.manage`. A server that cannot move (no room elsewhere, busy, rolled back) stays on the Node. '
      + 'A Controller restarted mid-way carries the drain on once another Node takes placements; enabling the Node ends it after the move under way. '
      + 'A REVOKED Node answers `invalid_transition`.',
    params: IdParams('nodeId'), response: DrainStarted, errors: ['invalid_transition'],
    audit: { action: 'node.drain', targetKind: 'node' },
    handler: async ({ caller, params, audit }) => s.drain.drain(caller, params.nodeId, audit),
  }),
];
