import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, invalidRequest, notFound } from '../../core/errors.js';
import type { Reservation as Resources, ServerSoftware as Software } from '../../domain/server-spec.js';
import type { NetworkDoc, ServerDoc } from '../../store/records.js';
import type { Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { NetworkRoutePush } from './route-push.js';
import type { SecretRotation } from './secret-rotation.js';
import { networkId } from '../../domain/network.js';
import type { NetworkState } from './network-state.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { ProxyServer } from './proxy-server.js';
import type { TeamService } from '../identity/teams.js';

/** The team the proxy joins when POST /network/proxy names none. */
export const proxyTeamName = 'network';

export interface NetworkUpdate {
  name?: string;
  description?: string;
  address?: string;
  port?: number;
  /** A member's id sets the lobby; null clears it. */
  lobbyServerId?: string | null;
  /** The teams admitted to the network, replacing the list. */
  teamIds?: string[];
}

export interface ProxyInput {
  software: Software;
  resources: Resources;
  nodeId?: string;
  name?: string;
  teamId?: string;
}

const networkView = ({ _id, teamIds, ...rest }: NetworkDoc, proxy: ServerDoc | null, liveTeams: ReadonlySet<string>) => ({
  ...rest,
  ...(proxy ? { proxyServerId: proxy._id } : {}),
  teamIds: (teamIds ?? []).filter((id) => liveTeams.has(id)),
});

/**
 * The one network created at setup: where players connect, its lobby, its proxy and the routes
 * the proxy is told. Changing it is for global administrators; reading it for anyone signed in
 * (the routes only as far as the caller can read the members).
 */
export class NetworkService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly state: NetworkState,
    private readonly servers: ServerAggregate,
    private readonly proxyServer: ProxyServer,
    private readonly teams: TeamService,
    private readonly routePush: NetworkRoutePush,
    private readonly rotation: SecretRotation,
  ) {}

  private async record(): Promise<NetworkDoc> {
    const network = await this.state.record();
    if (!network) throw notFound('network');
    return network;
  }

  /** The admitted teams that still exist: a deleted team drops out. */
  private async liveTeams(network: NetworkDoc): Promise<Set<string>> {
    const ids = network.teamIds ?? [];
    if (ids.length === 0) return new Set();
    return new Set((await this.deps.repos.teams.find({ _id: { $in: ids } })).map((t) => t._id));
  }

  async get() {
    const network = await this.record();
    return networkView(network, await this.state.proxy(), await this.liveTeams(network));
  }

  async update(caller: Caller, input: NetworkUpdate, audit: AuditScope) {
    audit.target(networkId).detail({ ...input });
    this.access.requireGlobalAdmin(caller);
    const network = await this.record();
    if (input.lobbyServerId) await this.checkLobby(input.lobbyServerId);
    const teamIds = input.teamIds === undefined ? undefined : [...new Set(input.teamIds)];
    if (teamIds?.length) {
      const found = new Set((await this.deps.repos.teams.find({ _id: { $in: teamIds } })).map((t) => t._id));
      const missing = teamIds.find((id) => !found.has(id));
      if (missing) throw invalidRequest(`body.teamIds: no team ${missing}.`);
    }
    const proxy = await this.state.proxy();
    if (input.port !== undefined && proxy) await this.proxyServer.movePort(proxy, input.port);
    const removed = teamIds ? [...await this.liveTeams(network)].filter((id) => !teamIds.includes(id)) : [];
    const left = await this.leave(removed);
    const { lobbyServerId, teamIds: _teamIds, ...fields } = input;
    const { lobbyServerId: previousLobby, ...rest } = network;
    const chosen = lobbyServerId === undefined ? previousLobby : lobbyServerId ?? undefined;
    const lobby = chosen && !left.includes(chosen) ? chosen : undefined;
    const updated: NetworkDoc = { ...rest, ...fields, ...(lobby ? { lobbyServerId: lobby } : {}), ...(teamIds ? { teamIds } : {}), updatedAt: nowIso(this.deps) };
    await this.deps.repos.network.replace({ _id: networkId }, updated);
    this.routePush.routesMayHaveChanged();
    if (removed.length > 0) {
      audit.detail({ leftNetwork: left, forwardingSecretRotated: true, restartsDue: await this.rotation.rotate() });
    }
    return networkView(updated, await this.state.proxy(), await this.liveTeams(updated));
  }

  /**
   * The members of teams no longer admitted leave the network (they take it at their next start,
   * which the rotation that follows brings about). Done before the teams are stored: a busy
   * server fails the whole change with `phase_busy`, and trying it again finds the rest.
   */
  private async leave(teamIds: readonly string[]): Promise<string[]> {
    if (teamIds.length === 0) return [];
    const members = await this.deps.repos.servers.find({ teamId: { $in: [...teamIds] }, kind: 'GAME_SERVER', 'desired.inNetwork': true });
    for (const doc of members) await this.servers.apply(doc, { type: 'UPDATE', at: nowIso(this.deps), inNetwork: false });
    return members.map((d) => d._id);
  }

  /** A new forwarding secret, then a rolling restart of the proxy and the running members (global administrators). */
  async rotateSecret(caller: Caller, audit: AuditScope): Promise<void> {
    audit.target(networkId);
    this.access.requireGlobalAdmin(caller);
    await this.record();
    audit.detail({ restartsDue: await this.rotation.rotate() });
  }

  /** The lobby is a member: a game server whose desired state says it is in the network. */
  private async checkLobby(serverId: string): Promise<void> {
    const server = await this.deps.repos.servers.findById(serverId);
    if (!server || server.desired.state === 'DELETED') throw invalidRequest(`body.lobbyServerId: no server ${serverId}.`);
    if (!server.desired.inNetwork) throw conflict(`${server.name} is not a network member; PATCH /servers/${serverId} {"inNetwork": true} first.`);
  }

  async createProxy(caller: Caller, input: ProxyInput, audit: AuditScope) {
    audit.detail({ software: input.software, resources: input.resources, ...(input.nodeId ? { nodeId: input.nodeId } : {}) });
    this.access.requireGlobalAdmin(caller);
    const network = await this.record();
    const name = input.name ?? 'proxy';
    audit.detail({ name, ...(input.teamId ? { teamId: input.teamId } : {}) });
    if (input.teamId !== undefined && !(await this.deps.repos.teams.findById(input.teamId))) throw invalidRequest(`body.teamId: no team ${input.teamId}.`);
    const team = async () => {
      if (input.teamId !== undefined) return input.teamId;
      const { team: made, created } = await this.teams.ensure(proxyTeamName);
      audit.detail({ teamId: made._id, ...(created ? { teamCreated: true } : {}) });
      return made._id;
    };
    return this.proxyServer.create({ name, team, software: input.software, resources: input.resources, ...(input.nodeId ? { nodeId: input.nodeId } : {}) }, network.port, audit);
  }

  /** What the proxy is told, lobby first; a caller who is not a global administrator sees the members it can read. */
  async routes(caller: Caller) {
    const { routes } = await this.state.routeSet();
    const teams = await this.access.teamsWith(caller, 'servers.read');
    if (!teams) return { items: routes };
    const readable = new Set((await this.deps.repos.servers.find({ _id: { $in: routes.map((r) => r.serverId) }, teamId: { $in: teams } })).map((s) => s._id));
    return { items: routes.filter((r) => readable.has(r.serverId)) };
  }
}
