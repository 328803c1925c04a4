import type { ServerNetwork } from '../../../shared/link/messages.js';
import type { NodeFleet } from '../../actors/fleet.js';
import { networkId, networkRoutes, type NetworkFacts, type NetworkRoute } from '../../domain/network.js';
import type { ServerKind } from '../../domain/server-spec.js';
import { reachAddressOf } from '../../../shared/node-address.js';
import type { NetworkDoc, ServerDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';
import type { ForwardingSecret } from './forwarding-secret.js';

export const networkFactsOf = (doc: ServerDoc): NetworkFacts => ({
  serverId: doc._id,
  name: doc.name,
  kind: doc.kind,
  ...(doc.nodeId ? { nodeId: doc.nodeId } : {}),
  ...(doc.gamePort ? { gamePort: doc.gamePort } : {}),
  desiredState: doc.desired.state,
  desiredInNetwork: doc.desired.inNetwork,
  ...(doc.observed.runtimeState ? { runtimeState: doc.observed.runtimeState } : {}),
  startedInNetwork: doc.observed.startedInNetwork,
  ...(doc.observed.sleeping ? { sleeping: true } : {}),
});

/** What the proxy is told: its routes, lobby first, and the lobby's id when it is among them. */
export interface RouteSet {
  routes: NetworkRoute[];
  lobbyServerId?: string;
}

/**
 * What the network part of a desired state reads of one server's entry: the agent link's
 * DesiredServerEntry fits it, named structurally so the network does not import the link.
 */
export interface NetworkEntry {
  serverId: string;
  kind: ServerKind;
  desired: { inNetwork: boolean };
}

/**
 * The network as the proxy and the members must be told it, read from the stored servers and the
 * Node fleet's live addresses: the routes (members started as members, lobby first) and the
 * forwarding secret. It decides nothing; the network rules are in `domain/network.ts`.
 */
export class NetworkState {
  constructor(
    private readonly repos: Pick<Repositories, 'servers' | 'network'>,
    private readonly nodes: Pick<NodeFleet, 'state'>,
    readonly secret: ForwardingSecret,
  ) {}

  record(): Promise<NetworkDoc | null> {
    return this.repos.network.findById(networkId);
  }

  /** The network's one proxy, if it has been created. */
  proxy(): Promise<ServerDoc | null> {
    return this.repos.servers.findOne({ kind: 'PROXY' });
  }

  async proxyWithId(serverId: string): Promise<ServerDoc | null> {
    const doc = await this.repos.servers.findById(serverId);
    return doc?.kind === 'PROXY' ? doc : null;
  }

  reachAddress = (nodeId: string): string => {
    const state = this.nodes.state(nodeId);
    return state ? reachAddressOf(state.address, state.status.observedAddress) : '';
  };

  async routeSet(): Promise<RouteSet> {
    // Members started as members, and members asleep (started as members at their wake): two reads, as an $or scans every server.
    const [network, started, members] = await Promise.all([
      this.record(),
      this.repos.servers.find({ kind: 'GAME_SERVER', 'observed.startedInNetwork': true }),
      this.repos.servers.find({ kind: 'GAME_SERVER', 'desired.inNetwork': true }),
    ]);
    const candidates = new Map([...started, ...members.filter((s) => s.observed.sleeping)].map((s) => [s._id, s]));
    const routes = networkRoutes([...candidates.values()].map(networkFactsOf), this.reachAddress, network?.lobbyServerId);
    const lobby = routes.find((r) => r.serverId === network?.lobbyServerId);
    return { routes, ...(lobby ? { lobbyServerId: lobby.serverId } : {}) };
  }

  /** The network part of each entry's desired state: routes and secret for the proxy, the secret for members. */
  async forEntries(entries: readonly NetworkEntry[]): Promise<Map<string, ServerNetwork>> {
    const out = new Map<string, ServerNetwork>();
    const involved = entries.filter((e) => e.kind === 'PROXY' || e.desired.inNetwork);
    if (involved.length === 0) return out;
    const forwardingSecret = await this.secret.get();
    const proxied = involved.some((e) => e.kind === 'PROXY') ? await this.routeSet() : undefined;
    for (const e of involved) {
      out.set(e.serverId, e.kind === 'PROXY' && proxied
        ? { routes: proxied.routes, lobbyServerId: proxied.lobbyServerId ?? '', forwardingSecret }
        : { routes: [], lobbyServerId: '', forwardingSecret });
    }
    return out;
  }
}
