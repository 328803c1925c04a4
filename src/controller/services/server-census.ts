import type { Convergence, Phase, ServerRuntimeState } from '../domain/server-spec.js';
import type { Repositories } from '../store/repositories.js';
import type { ServerService } from './servers.js';

/** How many servers share one phase, runtime state and convergence. */
export interface ServerTally {
  phase: Phase;
  /** NONE while the Agent has reported no process state (not installed yet, or never heard). */
  runtimeState: ServerRuntimeState | 'NONE';
  convergence: Convergence;
  count: number;
}

/**
 * Counts the fleet's servers by state, as the API shows each one (`cairn_servers`). It is taken
 * from the records when asked, not kept up to date by events, so it cannot drift from them: the
 * runtime state and observed generation live in the records only, and convergence also depends
 * on whether each Node is heard right now.
 */
export class ServerCensus {
  constructor(private readonly repos: Pick<Repositories, 'servers'>, private readonly servers: Pick<ServerService, 'listItem'>) {}

  async tally(): Promise<ServerTally[]> {
    const tallies = new Map<string, ServerTally>();
    // Every record, read only: shared with the store rather than copied (a scrape with 100,000 servers).
    for (const doc of await this.repos.servers.findShared({})) {
      const item = this.servers.listItem(doc);
      const runtimeState = item.runtimeState ?? 'NONE';
      const key = `${item.phase}/${runtimeState}/${item.convergence}`;
      const tally = tallies.get(key) ?? { phase: item.phase, runtimeState, convergence: item.convergence, count: 0 };
      tally.count += 1;
      tallies.set(key, tally);
    }
    return [...tallies.values()];
  }
}
