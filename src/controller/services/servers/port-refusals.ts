import type { Clock } from '../../../shared/clock.js';
import type { PortRange } from '../../../shared/link/messages.js';

/** How long a port another program held stays avoided on its Node (it may be freed; a Controller restart forgets sooner). */
export const foreignPortMemoryMs = 10 * 60_000;

/**
 * What Agents found about game ports that servers could not start on, kept in memory only:
 * ports another program holds, per Node, for a while; and the servers that could not be moved
 * because no port of their Node's range was left.
 */
export class PortRefusals {
  /** Per Node: port → until when (ms since the epoch) it is avoided. */
  private readonly foreign = new Map<string, Map<number, number>>();
  /** Per server: the Node and its range in which no free port was left. */
  private readonly stuck = new Map<string, { nodeId: string; range: PortRange }>();

  constructor(private readonly clock: Clock) {}

  /** Another program holds `port` on the Node's host. */
  refused(nodeId: string, port: number): void {
    const ports = this.foreign.get(nodeId) ?? new Map<number, number>();
    ports.set(port, this.clock.now().getTime() + foreignPortMemoryMs);
    this.foreign.set(nodeId, ports);
  }

  /**
   * Every port remembered on the Node is avoided for another while. Said while a server has no
   * port left: its Agent checks only the server's own port again, so the others are not tried
   * again (a move, a new generation) each time the memory of them would run out.
   */
  keep(nodeId: string): void {
    const ports = this.foreign.get(nodeId);
    const until = this.clock.now().getTime() + foreignPortMemoryMs;
    for (const port of ports?.keys() ?? []) ports!.set(port, until);
  }

  /** The ports known to be held by other programs on any of these Nodes (one host's), expired ones forgotten. */
  foreignOn(nodeIds: readonly string[]): Set<number> {
    const now = this.clock.now().getTime();
    const held = new Set<number>();
    for (const nodeId of nodeIds) {
      const ports = this.foreign.get(nodeId);
      if (!ports) continue;
      for (const [port, until] of ports) {
        if (until <= now) ports.delete(port);
        else held.add(port);
      }
      if (ports.size === 0) this.foreign.delete(nodeId);
    }
    return held;
  }

  /** No port of `range` was left to move the server to; true when this is news. */
  noneLeft(serverId: string, nodeId: string, range: PortRange): boolean {
    const before = this.stuck.get(serverId);
    this.stuck.set(serverId, { nodeId, range });
    return before?.nodeId !== nodeId || before.range.first !== range.first || before.range.last !== range.last;
  }

  /** The server's port is no longer refused (it moved, runs, or stopped wanting to). */
  settled(serverId: string): void {
    this.stuck.delete(serverId);
  }

  /** The range in which no port was left for the server, as long as it is on the Node that said so. */
  noneLeftOf(serverId: string, nodeId: string | undefined): PortRange | undefined {
    const stuck = this.stuck.get(serverId);
    return stuck && stuck.nodeId === nodeId ? stuck.range : undefined;
  }
}
