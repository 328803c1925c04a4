import { holdsRoom, sumReservations } from '../../domain/placement.js';
import type { Reservation } from '../../domain/server-spec.js';
import type { Shared } from '../../store/collection.js';
import type { ServerDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';

/**
 * Where servers sit, as the Nodes, teams and servers services read it from the stored server
 * records: reservations per Node, the Nodes of teams, and what keeps a Node or a team from
 * being deleted. Shared here so none of those services needs another to be wired in later.
 */
export class ServerPlacements {
  constructor(private readonly repos: Repositories) {}

  /**
   * The sum of the reservations of the servers placed on the Node, stopped ones included, and of
   * those a migration moves to it or has not finished moving away from it; `exceptServerId` aside.
   */
  async reservedOn(nodeId: string, exceptServerId?: string): Promise<Reservation> {
    const servers = await this.holders(nodeId, exceptServerId);
    return sumReservations(servers.map((s) => s.desired.resources));
  }

  /** The servers whose reservations `reservedOn` sums. */
  async holders(nodeId: string, exceptServerId?: string): Promise<Shared<ServerDoc>[]> {
    return (await this.holding(nodeId)).filter((s) => s._id !== exceptServerId && holdsRoom(s));
  }

  async reservations(nodeIds: string[]): Promise<Map<string, Reservation>> {
    return new Map(await Promise.all(nodeIds.map(async (id) => [id, await this.reservedOn(id)] as const)));
  }

  /** Ids of the Nodes that servers of these teams run on (what `nodes.read` in a team shows). */
  async nodesOfTeams(teamIds: string[]): Promise<string[]> {
    const placed = await this.repos.servers.find({ teamId: { $in: teamIds } });
    return [...new Set(placed.flatMap((s) => (s.nodeId ? [s.nodeId] : [])))];
  }

  /** Why the Node cannot be deleted yet, if servers are placed on it (holding room or not). */
  async nodeInUse(nodeId: string): Promise<string | undefined> {
    const count = (await this.holding(nodeId)).length;
    return count > 0 ? `${count} server(s) are placed on it or migrating to or from it` : undefined;
  }

  /**
   * Servers that hold room on a Node: placed there, or a migration's target or not yet cleaned
   * source. Three indexed reads: an $or is a scan of every server on the embedded store, and
   * every resize (PATCH) asks this (100,000 servers: tens of ms each, in the servers' one queue).
   */
  private async holding(nodeId: string): Promise<Shared<ServerDoc>[]> {
    const found = await Promise.all(['nodeId', 'workflow.targetNodeId', 'workflow.sourceNodeId'].map((field) => this.repos.servers.findShared({ [field]: nodeId })));
    return [...new Map(found.flat().map((s) => [s._id, s])).values()];
  }

  /** Why the team cannot be deleted yet, if it has servers. */
  async teamInUse(teamId: string): Promise<string | undefined> {
    const count = await this.repos.servers.count({ teamId });
    return count > 0 ? `it has ${count} server(s)` : undefined;
  }
}
