import { ServerDetail, ServerParams } from '../../schemas/servers.js';
import { UpdateSoftware } from '../../schemas/software-update.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const softwareUpdateRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/servers/{serverId}/software', tag: 'servers', status: 202,
    summary: 'Update the server to another version (or build) of its template; answers the server in phase UPDATING.',
    description: 'Needs `servers.update` in the server\'s team. `workflow.kind` is `UPDATE` and `workflow.step` shows the progress: stopping the server, '
      + 'taking a PRE_UPDATE backup (to `backupDestinationId`, else to the built-in destination as a rollback copy removed at the end), installing the new '
      + 'software, starting on the new software (the template\'s ready line awaited when the server is desired RUNNING). Success: READY on the new '
      + '`software` with a new generation. Any failure puts the backup\'s files and the old software back and returns the server to READY in its desired '
      + 'runtime state with an `UPDATE_FAILED` condition naming the step. A version or build not offered, or the software the server runs already, is '
      + '`invalid_request`; an older game version without `allowDowngrade` is `downgrade_refused`; installed catalog plugins with no version for the target '
      + 'are `incompatible_plugin` (named) without `force`; `phase_busy` unless the server is READY.',
    params: ServerParams, body: UpdateSoftware, response: ServerDetail, errors: ['phase_busy', 'downgrade_refused', 'incompatible_plugin', 'node_unavailable'],
    audit: { action: 'server.software.update', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.updates.update(caller, params.serverId, body, audit),
  }),
];
