import { deriveConvergence } from '../../domain/convergence.js';
import type { Convergence, Phase, ServerRuntimeState } from '../../domain/server-spec.js';
import type { Repositories } from '../../store/repositories.js';

/** How many servers share one phase, runtime state and convergence. */
export interface ServerTally {
  phase: Phase;
  /** NONE while the Agent has reported no process state (not installed yet, or never heard). */
  runtimeState: ServerRuntimeState | 'NONE';
  convergence: Convergence;
  count: number;
}

/** Players online on the servers of one template that run now (on a Node that is heard). */
export interface PlayersTally {
  template: string;
  online: number;
}

export interface Census {
  servers: ServerTally[];
  players: PlayersTally[];
}

/** Servers counted between two turns of the event loop. */
const sliceServers = 5_000;

/**
 * Counts the fleet's servers by state, as the API shows each one (`cairn_servers`: the list item's
 * phase, runtime state and convergence). It is taken
 * from the records when asked, not kept up to date by events, so it cannot drift from them: the
 * runtime state and observed generation live in the records only, and convergence also depends
 * on whether each Node is heard right now.
 */
export class ServerCensus {
  /** The count under way: a scrape's gauges collect together and share it. */
  private counting?: Promise<Census>;

  constructor(private readonly repos: Pick<Repositories, 'servers'>, private readonly isConnected: (nodeId: string) => boolean) {}

  /** The fleet counted now, or by the count already under way. */
  tally(): Promise<Census> {
    if (this.counting) return this.counting;
    const counting = this.count().finally(() => {
      if (this.counting === counting) this.counting = undefined;
    });
    this.counting = counting;
    return counting;
  }

  private async count(): Promise<Census> {
    const tallies = new Map<string, ServerTally>();
    const players = new Map<string, number>();
    // Each Node's connection once per scrape, not once per server (100,000 servers, 5,000 Nodes).
    const connected = new Map<string, boolean>();
    const nodeConnected = (nodeId: string) => connected.get(nodeId) ?? connected.set(nodeId, this.isConnected(nodeId)).get(nodeId)!;
    // Every record, read only: shared with the store rather than copied.
    const docs = await this.repos.servers.findShared({});
    for (let i = 0; i < docs.length; i++) {
      // 100,000 servers take ≈ 0.2 s to count: in slices, so a scrape never holds up the link or the API that long.
      if (i > 0 && i % sliceServers === 0) await new Promise((resolve) => setImmediate(resolve));
      const doc = docs[i];
      const runtimeState = doc.observed.runtimeState || 'NONE';
      const convergence = deriveConvergence({
        nodeConnected: doc.nodeId ? nodeConnected(doc.nodeId) : false, phase: doc.phase, generation: doc.generation, desiredState: doc.desired.state, observed: doc.observed,
      });
      const key = `${doc.phase}/${runtimeState}/${convergence}`;
      const tally = tallies.get(key) ?? { phase: doc.phase, runtimeState, convergence, count: 0 };
      tally.count += 1;
      tallies.set(key, tally);
      if (doc.observed.players && runtimeState === 'RUNNING' && convergence !== 'UNKNOWN') {
        const template = doc.desired.software.template;
        players.set(template, (players.get(template) ?? 0) + doc.observed.players.online);
      }
    }
    return { servers: [...tallies.values()], players: [...players].map(([template, online]) => ({ template, online })) };
  }
}
