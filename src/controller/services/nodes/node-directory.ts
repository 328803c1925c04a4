import { defaultGamePorts } from '../../../shared/game-ports.js';
import type { NodeFleet, NodeState } from '../../actors/fleet.js';
import type { NodeDirectory, NodeInfo } from '../../core/node-directory.js';

const info = (s: NodeState): NodeInfo => ({
  nodeId: s.nodeId,
  acceptsPlacements: s.acceptsPlacements,
  allocatable: { cpuMillis: s.status.allocatable.cpuMillis, memoryBytes: s.status.allocatable.memoryBytes },
  hostname: s.status.hostname,
  gamePorts: s.status.gamePorts ?? defaultGamePorts,
  javaMajors: (s.status.runtimes ?? []).filter((r) => r.name === 'java').map((r) => r.major),
});

/** The Nodes as their actors know them, for the capabilities above: read only. */
export class FleetNodeDirectory implements NodeDirectory {
  constructor(private readonly fleet: NodeFleet) {}

  async get(nodeId: string): Promise<NodeInfo | undefined> {
    const state = this.fleet.state(nodeId);
    return state ? info(state) : undefined;
  }

  async list(): Promise<NodeInfo[]> {
    return this.fleet.states().map(info);
  }

  isConnected(nodeId: string): boolean {
    const state = this.fleet.connectionState(nodeId);
    return state === 'HEALTHY' || state === 'DEGRADED';
  }
}
