import { defaultGamePorts } from '../../../shared/game-ports.js';
import type { NodeFleet, NodeState } from '../../actors/fleet.js';
import type { NodeDirectory, NodeInfo } from '../../core/node-directory.js';
import type { NodeOwnership } from '../../core/node-ownership.js';
import type { StoredNodes } from './stored-nodes.js';

const info = (s: NodeState): NodeInfo => ({
  nodeId: s.nodeId,
  acceptsPlacements: s.acceptsPlacements,
  allocatable: { cpuMillis: s.status.allocatable.cpuMillis, memoryBytes: s.status.allocatable.memoryBytes },
  hostname: s.status.hostname,
  gamePorts: s.status.gamePorts ?? defaultGamePorts,
  javaMajors: (s.status.runtimes ?? []).filter((r) => r.name === 'java').map((r) => r.major),
});

/**
 * The Nodes for the capabilities above, read only: those this Controller drives as their actors
 * know them live, the others as their holders wrote them to the store (`StoredNodes`), so any
 * Controller places on any Node and shows every Node's connection.
 */
export class FleetNodeDirectory implements NodeDirectory {
  constructor(private readonly fleet: NodeFleet, private readonly ownership: Pick<NodeOwnership, 'termFor'>, private readonly stored: StoredNodes) {}

  /** A Node whose lease was just gained has no actor here until its record is read again: the store's word meanwhile. */
  async get(nodeId: string): Promise<NodeInfo | undefined> {
    const state = this.drives(nodeId) ? this.fleet.state(nodeId) : undefined;
    return state ? info(state) : (await this.stored.get(nodeId))?.info;
  }

  async list(): Promise<NodeInfo[]> {
    const driven = this.fleet.states().filter((s) => this.drives(s.nodeId)).map(info);
    const live = new Set(driven.map((n) => n.nodeId));
    const others = (await this.stored.list()).map((s) => s.info).filter((n) => !live.has(n.nodeId));
    return [...driven, ...others];
  }

  isConnected(nodeId: string): boolean {
    if (!this.drives(nodeId)) return this.stored.connected(nodeId);
    const state = this.fleet.connectionState(nodeId);
    return state === 'HEALTHY' || state === 'DEGRADED';
  }

  private drives(nodeId: string): boolean {
    return this.ownership.termFor(nodeId) !== undefined;
  }
}
