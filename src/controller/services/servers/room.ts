import { conflict, DomainError, invalidRequest } from '../../core/errors.js';
import { bestFit, fits, freeGamePort, freeOf } from '../../domain/placement.js';
import type { Reservation } from '../../domain/server-spec.js';
import type { PortRange } from '../../../shared/link/messages.js';
import type { Repositories } from '../../store/repositories.js';
import { networkId } from '../../domain/network.js';
import type { NodeDirectory, NodeInfo } from '../../core/node-directory.js';
import type { PortRefusals } from './port-refusals.js';
import type { ServerPlacements } from '../placement/placements.js';

const gib = 2 ** 30;
/** `1500m CPU, 2.5 GiB memory`: the units the web UI and the CLI show. */
const amounts = (r: Reservation) => `${r.cpuMillis}m CPU, ${r.memoryBytes >= gib ? `${(r.memoryBytes / gib).toFixed(1)} GiB` : `${Math.round(r.memoryBytes / 2 ** 20)} MiB`} memory`;

/**
 * Room on the fleet for a server: which Node has space for a reservation, and which game ports a
 * host has free. Reads only; a caller reads and decides in the placement turn (`PlacementTurn`).
 */
export class ServerRoom {
  constructor(
    private readonly repos: Repositories,
    private readonly nodes: NodeDirectory,
    private readonly placements: ServerPlacements,
    private readonly refusals: PortRefusals,
  ) {}

  /**
   * A Node with room for the reservation (and with `port` free on its host, when a fixed port is
   * needed); chosen automatically, preferably one with a Java of at least `javaMinimum`.
   */
  async place(request: Reservation, nodeId: string | undefined, port: number | undefined, javaMinimum?: number): Promise<string> {
    if (nodeId !== undefined) {
      const node = await this.nodes.get(nodeId);
      if (!node) throw invalidRequest(`body.nodeId: no Node ${nodeId}.`);
      if (!node.acceptsPlacements) throw new DomainError('insufficient_capacity', 'That Node does not accept placements (disabled or not healthy).');
      await this.requireRoomOn(node, request);
      if (port !== undefined && (await this.portsInUse(nodeId)).has(port)) throw conflict(`Port ${port} is taken on that Node's host.`);
      return nodeId;
    }
    const candidates = await Promise.all(
      (await this.nodes.list()).map(async (n) => ({
        ...n,
        acceptsPlacements: n.acceptsPlacements && (port === undefined || !(await this.portsInUse(n.nodeId)).has(port)),
        reserved: await this.placements.reservedOn(n.nodeId),
      })),
    );
    const chosen = bestFit(candidates, request, javaMinimum);
    if (!chosen) {
      throw new DomainError('insufficient_capacity', `No Node that accepts placements has room for this reservation (${amounts(request)})${port === undefined ? '' : ` and port ${port} free`}. ${await this.freeOnEligible(candidates)}`);
    }
    return chosen;
  }

  /**
   * Throws `insufficient_capacity` unless the reservation fits on the Node beside what its servers
   * hold; `exceptServerId`'s own reservation, when the server is already there (a resize, a retried install), aside.
   */
  async requireRoomOn(node: string | NodeInfo, request: Reservation, exceptServerId?: string): Promise<void> {
    const info = typeof node === 'string' ? await this.nodes.get(node) : node;
    if (!info) throw new DomainError('insufficient_capacity', 'The server\'s Node is gone.');
    const free = freeOf({ allocatable: info.allocatable, reserved: await this.placements.reservedOn(info.nodeId, exceptServerId) });
    if (fits(free, request)) return;
    const holders = await this.heldBy(info, exceptServerId);
    const where = exceptServerId === undefined ? 'that Node' : 'the server\'s Node';
    throw new DomainError('insufficient_capacity', `The reservation (${amounts(request)}) does not fit on ${where}: it has ${amounts(free)} free${holders ? `; reserved by: ${holders}` : ''}.`);
  }

  /**
   * `survival (FAILED), proxy`: the servers that hold the most of the Node (by the larger of their
   * CPU and memory shares), with their phase unless READY, so a refusal says what to stop, shrink or delete.
   */
  private async heldBy(node: NodeInfo, exceptServerId?: string): Promise<string> {
    const share = (r: Reservation) => Math.max(r.cpuMillis / Math.max(1, node.allocatable.cpuMillis), r.memoryBytes / Math.max(1, node.allocatable.memoryBytes));
    const holders = (await this.placements.holders(node.nodeId, exceptServerId)).sort((a, b) => share(b.desired.resources) - share(a.desired.resources));
    const shown = holders.slice(0, 3).map((s) => (s.phase === 'READY' ? s.name : `${s.name} (${s.phase})`));
    return shown.join(', ') + (holders.length > shown.length ? ` and ${holders.length - shown.length} more` : '');
  }

  /** What each Node that accepts placements has free, by name, most memory first, and who holds the rest: what to shrink the reservation to, or where room is missing. */
  private async freeOnEligible(candidates: readonly (NodeInfo & { reserved: Reservation })[]): Promise<string> {
    const eligible = candidates.filter((c) => c.acceptsPlacements).map((c) => ({ node: c, free: freeOf(c) }));
    if (eligible.length === 0) return 'No Node accepts placements now (each is disabled, draining or not connected).';
    const names = new Map((await this.repos.nodes.find({ _id: { $in: eligible.map((e) => e.node.nodeId) } })).map((n) => [n._id, n.name]));
    const shown = eligible.sort((a, b) => b.free.memoryBytes - a.free.memoryBytes).slice(0, 5);
    const more = eligible.length > shown.length ? ` (and ${eligible.length - shown.length} more)` : '';
    const lines = await Promise.all(shown.map(async (e) => {
      const holders = await this.heldBy(e.node);
      return `${names.get(e.node.nodeId) ?? e.node.nodeId} ${amounts(e.free)}${holders ? ` (reserved by: ${holders})` : ''}`;
    }));
    return `Free: ${lines.join('; ')}${more}.`;
  }

  /**
   * Nodes on one host share its ports, so a port is free only if no server on any of them holds
   * it, nor a migration to one of them holds it for the server it brings.
   */
  async portsInUse(nodeId: string, exceptServerId?: string): Promise<Set<number>> {
    const host = await this.hostOf(nodeId);
    // Two indexed reads: an $or is a scan of every server on the embedded store.
    const found = await Promise.all([this.repos.servers.findShared({ nodeId: { $in: host } }), this.repos.servers.findShared({ 'workflow.targetNodeId': { $in: host } })]);
    const servers = [...new Map(found.flat().map((s) => [s._id, s])).values()];
    return new Set(servers.filter((s) => s._id !== exceptServerId).flatMap((s) => [
      ...(s.gamePort && s.nodeId && host.includes(s.nodeId) ? [s.gamePort] : []),
      ...(s.workflow?.targetGamePort && s.workflow.targetNodeId && host.includes(s.workflow.targetNodeId) ? [s.workflow.targetGamePort] : []),
    ]));
  }

  /** The Nodes on the same host as `nodeId` (itself included): they share its ports. */
  private async hostOf(nodeId: string): Promise<string[]> {
    const node = await this.nodes.get(nodeId);
    if (!node) throw new DomainError('insufficient_capacity', 'That Node is gone.');
    return (await this.nodes.list()).filter((n) => n.nodeId === nodeId || (node.hostname && n.hostname === node.hostname)).map((n) => n.nodeId);
  }

  /**
   * The lowest port of the Node's range that no server on its host holds (`exceptServerId` aside),
   * that no other program is known to hold there, and that is not the network's: the network's
   * port is kept free on every host, so the proxy can always be placed or moved there.
   */
  async freePort(nodeId: string, exceptServerId?: string): Promise<{ port?: number; range: PortRange }> {
    const servers = await this.portsInUse(nodeId, exceptServerId);
    const foreign = this.refusals.foreignOn(await this.hostOf(nodeId));
    const network = (await this.repos.network.findById(networkId))?.port;
    const node = await this.nodes.get(nodeId);
    if (!node) throw new DomainError('insufficient_capacity', 'That Node is gone.');
    return { port: freeGamePort(node.gamePorts, { servers, foreign, network }), range: node.gamePorts };
  }

  async allocatePort(nodeId: string): Promise<number> {
    const { port } = await this.freePort(nodeId);
    if (port === undefined) throw new DomainError('insufficient_capacity', 'The Node has no free game port left.');
    return port;
  }
}
