import type { Reservation } from '../domain/server-spec.js';
import type { Repositories } from '../store/repositories.js';

const zero: Reservation = { cpuMillis: 0, memoryBytes: 0 };
/** Servers that hold room on a Node: placed there, or a migration's target or not yet cleaned source. */
const holdingNode = (nodeId: string) => ({ $or: [{ nodeId }, { 'workflow.targetNodeId': nodeId }, { 'workflow.sourceNodeId': nodeId }] });
const add = (a: Reservation, b: Reservation): Reservation => ({ cpuMillis: a.cpuMillis + b.cpuMillis, memoryBytes: a.memoryBytes + b.memoryBytes });

/**
 * Where servers sit, as the Nodes, teams and servers services read it from the stored server
 * records: reservations per Node, the Nodes of teams, and what keeps a Node or a team from
 * being deleted. Shared here so none of those services needs another to be wired in later.
 */
export class ServerPlacements {
  constructor(private readonly repos: Repositories) {}

  /**
   * The sum of the reservations of the servers placed on the Node, stopped ones included, and of
   * those a migration moves to it or has not finished moving away from it.
   */
  async reservedOn(nodeId: string): Promise<Reservation> {
    const servers = await this.repos.servers.find(holdingNode(nodeId));
    return servers.reduce((sum, s) => add(sum, s.desired.resources), zero);
  }

  async reservations(nodeIds: string[]): Promise<Map<string, Reservation>> {
    return new Map(await Promise.all(nodeIds.map(async (id) => [id, await this.reservedOn(id)] as const)));
  }

  /** Ids of the Nodes that servers of these teams run on (what `nodes.read` in a team shows). */
  async nodesOfTeams(teamIds: string[]): Promise<string[]> {
    const placed = await this.repos.servers.find({ teamId: { $in: teamIds } });
    return [...new Set(placed.flatMap((s) => (s.nodeId ? [s.nodeId] : [])))];
  }

  /** Why the Node cannot be deleted yet, if servers are placed on it. */
  async nodeInUse(nodeId: string): Promise<string | undefined> {
    const count = await this.repos.servers.count(holdingNode(nodeId));
    return count > 0 ? `${count} server(s) are placed on it or migrating to or from it` : undefined;
  }

  /** Why the team cannot be deleted yet, if it has servers. */
  async teamInUse(teamId: string): Promise<string | undefined> {
    const count = await this.repos.servers.count({ teamId });
    return count > 0 ? `it has ${count} server(s)` : undefined;
  }
}
