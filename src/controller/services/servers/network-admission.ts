import { isGlobalAdmin } from '../../domain/permissions.js';
import type { Caller } from '../../core/caller.js';
import { forbidden } from '../../core/errors.js';
import type { Access } from '../identity/access.js';
import type { ServiceDeps } from '../deps.js';
import { networkId } from '../../domain/network.js';

/**
 * Joining the network trusts the team with the forwarding secret every member shares: it needs
 * servers.update and, unless the caller is a global administrator, the team admitted by one.
 */
export async function requireMayJoinNetwork(deps: ServiceDeps, access: Access, caller: Caller, teamId: string): Promise<void> {
  if (isGlobalAdmin(caller)) return;
  if (!(await access.may(caller, teamId, 'servers.update'))) throw forbidden('inNetwork: joining the network needs servers.update in this team.');
  const network = await deps.repos.network.findById(networkId);
  if (!network?.teamIds?.includes(teamId)) {
    throw forbidden(`inNetwork: the team ${teamId} is not admitted to the network; a global administrator admits teams with PATCH /network {teamIds}.`);
  }
}
