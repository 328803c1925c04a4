import type { ServerDesiredState as DesiredState, ServerKind, ServerRuntimeState as RuntimeState } from './server-spec.js';

/** The id of the network's record: a Controller has one network. */
export const networkId = 'network';

/** What the network rules read of one server. */
export interface NetworkFacts {
  serverId: string;
  name: string;
  kind: ServerKind;
  nodeId?: string;
  gamePort?: number;
  desiredState: DesiredState;
  desiredInNetwork: boolean;
  runtimeState?: RuntimeState;
  startedInNetwork: boolean;
  /** Asleep (`sleep`): its game is stopped and its Agent answers its port; a join through the proxy wakes it. */
  sleeping?: boolean;
}

/** One place the proxy may send players to. */
export interface NetworkRoute {
  serverId: string;
  name: string;
  address: string;
  port: number;
}

const live = (runtimeState: RuntimeState | undefined) => runtimeState === 'RUNNING' || runtimeState === 'STARTING';

/**
 * A running server whose desired membership differs from the one its process started with: the
 * change waits for its next start (`RESTART_PENDING`).
 */
export const restartPending = (s: Pick<NetworkFacts, 'desiredInNetwork' | 'runtimeState' | 'startedInNetwork' | 'desiredState'>) =>
  s.desiredState !== 'DELETED' && live(s.runtimeState) && s.desiredInNetwork !== s.startedInNetwork;

/**
 * A running proxy or member whose process started before the forwarding secret was rotated: it
 * takes the new secret at its next start (`RESTART_PENDING`).
 */
export const holdsStaleSecret = (s: { runtimeState?: RuntimeState; startedAt?: string; staleSecretProcess?: string }) =>
  s.staleSecretProcess !== undefined && live(s.runtimeState) && (s.startedAt ?? '') === s.staleSecretProcess;

/**
 * Whether players may be sent to the server: a game server that runs, was started as a member,
 * and is meant to keep running (one being stopped or deleted leaves the routes at once, so no
 * new player is sent to it). Membership itself changes only at a start. A member asleep stays
 * routed: a player sent to it is told it starts, wakes it, and joins again (it wakes a member).
 */
export const routable = (s: NetworkFacts) =>
  s.kind === 'GAME_SERVER' && s.desiredState === 'RUNNING' && s.nodeId !== undefined && s.gamePort !== undefined
  && ((s.runtimeState === 'RUNNING' && s.startedInNetwork) || (s.sleeping === true && s.runtimeState === 'STOPPED' && s.desiredInNetwork));

/** The lobby the proxy is told of: the configured one while it still wants to be a member. */
export function effectiveLobby(lobbyServerId: string | undefined, members: readonly NetworkFacts[]): string | undefined {
  const lobby = members.find((m) => m.serverId === lobbyServerId);
  return lobby?.desiredInNetwork ? lobby.serverId : undefined;
}

/**
 * The routes the proxy is told, in the order it tries them: the lobby first, then the other
 * members by name and then id, so the order never depends on when they started. A member whose
 * Node's address is unknown cannot be reached and is left out.
 */
export function networkRoutes(servers: readonly NetworkFacts[], reachAddress: (nodeId: string) => string, lobbyServerId: string | undefined): NetworkRoute[] {
  const lobby = effectiveLobby(lobbyServerId, servers);
  const routes = servers.filter(routable).flatMap((s): NetworkRoute[] => {
    const address = reachAddress(s.nodeId!);
    return address ? [{ serverId: s.serverId, name: s.name, address, port: s.gamePort! }] : [];
  });
  const rank = (r: NetworkRoute) => (r.serverId === lobby ? 0 : 1);
  return routes.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.serverId < b.serverId ? -1 : 1));
}
