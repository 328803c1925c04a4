import { chooseSoftware } from './software-choice.js';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { NodeFleet } from '../../actors/fleet.js';
import { accepts, machineState, ServerFleet, type ServerActor } from '../../actors/server-fleet.js';
import type { ServerEvent } from '../../actors/server-machine.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, invalidRequest, DomainError } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { withoutConsoleLines } from '../../domain/last-crash.js';
import type { Permission } from '../../core/permission-names.js';
import { serverName } from '../../domain/server-name.js';
import { defaultRestartPolicy, emptyObserved, type Reservation, type ServerDesired, type ServerKind, type ServerObserved } from '../../domain/server-spec.js';
import type { Shared } from '../../store/collection.js';
import type { ServerDoc } from '../../store/records.js';
import { networkId } from '../../domain/network.js';
import { requireMayJoinNetwork, requireMaySetEgress } from './network-admission.js';
import { ObservedMemo, type ObservedReport } from './observed-memo.js';
import type { ChangeOptions, CreateProxyInput, CreateServerInput, ServerListQuery, ServerNetworkInput } from './inputs.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { hidden, type Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { NodeGateway } from '../../core/node-gateway.js';
import type { ServerPlacements } from '../placement/placements.js';
import { PortRefusals } from './port-refusals.js';
import { requireReinstallable } from './reinstall-rule.js';
import { ServerCrashes } from './crashes.js';
import { ServerRoom } from './room.js';
import { ServerNames } from './server-names.js';
import type { ServerChangeHub } from './change-hub.js';
import { serverDetail, serverListItem, type ServerListItemView } from './views.js';
import { walkServerList } from './list-walk.js';
import { busyError, fromActor, nextRecord, previewRecord } from './actor-record.js';

export type { ChangeOptions, CreateProxyInput, CreateServerInput, ServerListQuery } from './inputs.js';

/** Hears every change of a Node's states (the Node actors' fleet). */
type NodeStateFeed = Pick<NodeFleet, 'subscribe'>;

/**
 * Servers: desired spec in, observed status out. Every command goes through the server's actor,
 * which accepts or refuses it (`phase_busy`); the new desired spec and the actor's snapshot are
 * persisted before the caller is answered, then the Node is told.
 */
export class ServerService {
  private readonly locks = new KeyedMutex();
  private readonly room: ServerRoom;
  private readonly names: ServerNames;
  /** Each server's last crash as its Agent reported it (console lines: memory only, never in the record). */
  readonly crashes = new ServerCrashes();
  /** What reports need of each record, kept as this service writes it (memory only). */
  private readonly observedMemo = new ObservedMemo();
  /** Game ports other programs hold, as Agents found them (memory only). */
  readonly portRefusals: PortRefusals;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly fleet: ServerFleet,
    private readonly templates: TemplateCatalog,
    private readonly nodes: NodeGateway,
    private readonly changes: ServerChangeHub,
    placements: ServerPlacements,
    nodeStates: NodeStateFeed,
  ) {
    this.portRefusals = new PortRefusals(deps.clock);
    this.room = new ServerRoom(deps.repos, nodes, placements, this.portRefusals);
    this.names = new ServerNames(deps.repos);
    // A Node heard again or lost changes its servers' convergence: tell the watchers. A Node just
    // added (created, or rehydrated before anyone can watch) changes no server's.
    nodeStates.subscribe((state, previous) => {
      if (!previous || previous.connectionState === state.connectionState) return;
      this.deps.repos.servers.find({ nodeId: state.nodeId })
        .then((docs) => docs.forEach((doc) => this.changed(doc)))
        .catch((err: unknown) => this.deps.logger.error({ err, nodeId: state.nodeId }, 'telling watchers of a Node change failed'));
    });
  }

  /** Stops every server actor (Controller shutdown); their state is in the store already. */
  stop(): void {
    this.fleet.stopAll();
  }

  private connected = (doc: Shared<ServerDoc>) => (doc.nodeId ? this.nodes.isConnected(doc.nodeId) : false);
  /** The last crash's lines are console output: only for a caller who holds `servers.console`, and never in an action's answer. */
  detail = (doc: ServerDoc, seesConsole = false) => {
    const crash = seesConsole ? this.crashes.of(doc) : withoutConsoleLines(this.crashes.of(doc));
    return serverDetail(doc, this.connected(doc), crash, this.portRefusals.noneLeftOf(doc._id, doc.nodeId));
  };
  listItem = (doc: Shared<ServerDoc>) => serverListItem(doc, this.connected(doc));

  /** The server, if the caller may see it and holds `permission` in its team. */
  async load(caller: Caller, serverId: string, permission: Permission): Promise<ServerDoc> {
    const doc = await this.deps.repos.servers.findById(serverId);
    if (!doc) throw hidden('server');
    await this.access.require(caller, doc.teamId, permission, 'server', 'servers.read');
    return doc;
  }

  async create(caller: Caller, raw: CreateServerInput, audit: AuditScope, options: ChangeOptions = {}) {
    const input = { ...raw, name: serverName(raw.name) };
    audit.detail({ name: input.name, teamId: input.teamId, software: input.software, resources: input.resources, ...(input.network ? { network: input.network } : {}) });
    const team = await this.deps.repos.teams.findById(input.teamId);
    if (!team) throw hidden('team');
    await this.access.require(caller, input.teamId, 'servers.create', 'team', 'servers.read');
    requireMaySetEgress(caller, [], input.network?.egressAllow);
    const { template, software } = chooseSoftware(this.templates, input.software);
    if (template.kind !== 'GAME_SERVER') throw invalidRequest('body.software.template: a proxy is created with POST /network/proxy.');
    if (input.inNetwork && !template.networkMember) throw new DomainError('not_network_capable', `${template.id} servers cannot join the network.`);
    if (input.inNetwork) await requireMayJoinNetwork(this.deps, this.access, caller, input.teamId);
    return this.insertPlaced('GAME_SERVER', { ...input, software, inNetwork: input.inNetwork ?? false }, async () => input.teamId, undefined, audit, options);
  }

  /** The network's proxy: placed, run and stopped like any server, on a Node with the network's port free (its game port). Never a member. */
  async createProxy(raw: CreateProxyInput, port: number, audit: AuditScope) {
    const input = { ...raw, name: serverName(raw.name) };
    const { template, software } = chooseSoftware(this.templates, input.software);
    if (template.kind !== 'PROXY') throw invalidRequest('body.software.template: not a proxy template; game servers are created with POST /servers.');
    // One proxy per network: the check and the insert are one step, so two creates cannot both pass.
    return this.locks.run('proxy', async () => {
      const existing = await this.deps.repos.servers.findOne({ kind: 'PROXY' });
      if (existing) throw conflict(`The network has its proxy already (${existing.name}, ${existing._id}).`);
      return this.insertPlaced('PROXY', { ...input, software, inNetwork: false }, input.team, port, audit);
    });
  }

  /** Places a new server (on `port` when given, else on a free game port), stores it and tells its Node. */
  private async insertPlaced(
    kind: ServerKind, input: Omit<CreateServerInput, 'teamId'> & { inNetwork: boolean }, team: () => Promise<string>, port: number | undefined, audit: AuditScope,
    { dryRun = false }: ChangeOptions = {},
  ) {
    // Placement and port choice read every reservation: one at a time, so two creates cannot both take the last room.
    return this.locks.run('placement', async () => {
      const nodeId = await this.room.place(input.resources, input.nodeId, port, this.templates.javaMinimum(input.software));
      const gamePort = port ?? (await this.room.allocatePort(nodeId));
      const teamId = await team();
      const nameKey = await this.names.vacant(teamId, input.name);
      const at = nowIso(this.deps);
      const id = this.deps.ids.next();
      const desired: ServerDesired = {
        state: 'STOPPED',
        software: input.software,
        resources: input.resources,
        inNetwork: input.inNetwork,
        ...(input.network?.egressAllow.length ? { egressAllow: input.network.egressAllow } : {}),
        restartPolicy: input.restartPolicy ?? defaultRestartPolicy,
        acknowledgedConditions: [],
        restartNonce: 0,
      };
      const actor = dryRun ? ServerFleet.fresh(desired, at) : this.fleet.create(id, desired, at);
      const doc: ServerDoc = {
        _id: id, name: input.name, nameKey, teamId, nodeId, kind, gamePort,
        ...fromActor(actor), observed: emptyObserved(), createdAt: at, updatedAt: at,
      };
      if (dryRun) {
        actor.stop();
        return this.detail(doc);
      }
      try {
        await this.deps.repos.servers.insert(doc);
      } catch (e) {
        this.fleet.remove(id);
        throw ServerNames.refusal(e, input.name);
      }
      this.observedMemo.saw(doc);
      audit.target(id).detail({ nodeId, gamePort });
      this.nodes.desiredStateChanged(nodeId, [doc]);
      this.changed(doc);
      return this.detail(doc);
    });
  }

  /**
   * Where a migration takes the server: `nodeId` if it accepts placements and has room, else the
   * Node placement picks; with a game port free there (the network's port for the proxy). `hold`
   * records the reservation while the placement lock is held, so no other placement takes the room.
   */
  async reserveMove<T>(doc: ServerDoc, nodeId: string | undefined, hold: (target: { nodeId: string; gamePort: number }) => Promise<T>): Promise<T> {
    return this.locks.run('placement', async () => {
      const fixedPort = doc.kind === 'PROXY' ? (await this.deps.repos.network.findById(networkId))?.port : undefined;
      const target = await this.room.place(doc.desired.resources, nodeId, fixedPort, this.templates.javaMinimum(doc.desired.software));
      return hold({ nodeId: target, gamePort: fixedPort ?? (await this.room.allocatePort(target)) });
    });
  }

  /**
   * The network's port changed: the proxy follows it (a new generation, so a running proxy
   * restarts on the new port). Refused while the proxy is busy, or when the port is taken on its host.
   */
  async moveProxyPort(proxy: ServerDoc, port: number): Promise<void> {
    await this.locks.run('placement', async () => {
      const current = (await this.deps.repos.servers.findById(proxy._id)) ?? proxy;
      if (current.gamePort === port) return;
      const event = { type: 'UPDATE', at: nowIso(this.deps) } as const;
      const actor = this.actorOf(current);
      if (!accepts(actor, event)) throw this.busy(actor);
      if (current.nodeId && (await this.room.portsInUse(current.nodeId, current._id)).has(port)) throw conflict(`Port ${port} is taken on the proxy's host.`);
      await this.apply({ ...current, gamePort: port }, event, undefined, { gamePort: port });
    });
  }

  /** Under the placement lock, with the room's view of the hosts: what a move to another port decides on. */
  placing<T>(work: (room: ServerRoom) => Promise<T>): Promise<T> {
    return this.locks.run('placement', () => work(this.room));
  }

  async list(caller: Caller, query: ServerListQuery) {
    const teams = await this.access.teamsWith(caller, 'servers.read');
    const filter: Record<string, unknown>[] = [];
    if (teams) filter.push({ teamId: { $in: teams } });
    if (query.teamId) filter.push({ teamId: query.teamId });
    if (query.nodeId) filter.push({ nodeId: query.nodeId });
    if (query.kind) filter.push({ kind: query.kind });
    if (query.inNetwork !== undefined) filter.push({ 'desired.inNetwork': query.inNetwork });
    const walk = { filter, convergence: query.convergence };
    return paginate<ServerListItemView, string>(query, (after, limit) => walkServerList(this.deps.repos, (id) => this.nodes.isConnected(id), walk, after, limit), (item) => item.id);
  }

  async get(caller: Caller, serverId: string) {
    const doc = await this.load(caller, serverId, 'servers.read');
    return this.detail(doc, await this.access.may(caller, doc.teamId, 'servers.console'));
  }

  /** One entry for power actions, as every later workflow's entry is: the actor decides. */
  async power(caller: Caller, serverId: string, action: 'START' | 'STOP' | 'RESTART', audit: AuditScope) {
    audit.target(serverId);
    const permission: Permission = action === 'STOP' ? 'servers.stop' : 'servers.start';
    const doc = await this.load(caller, serverId, permission);
    return this.detail(await this.apply(doc, { type: action, at: nowIso(this.deps) }));
  }

  async update(caller: Caller, serverId: string, input: { resources?: Reservation; inNetwork?: boolean; network?: ServerNetworkInput }, audit: AuditScope, options: ChangeOptions = {}) {
    audit.target(serverId).detail({ ...input });
    const doc = await this.load(caller, serverId, 'servers.update');
    requireMaySetEgress(caller, doc.desired.egressAllow ?? [], input.network?.egressAllow);
    if (input.inNetwork) {
      const template = this.templates.get(doc.desired.software.template);
      if (doc.kind === 'PROXY') throw new DomainError('not_network_capable', 'The proxy cannot join the network it serves.');
      if (!template?.networkMember) throw new DomainError('not_network_capable', 'This server\'s template cannot join the network.');
      await requireMayJoinNetwork(this.deps, this.access, caller, doc.teamId);
    }
    return this.locks.run('placement', async () => {
      const current = (await this.deps.repos.servers.findById(serverId)) ?? doc;
      if (input.resources && current.nodeId) {
        const actor = this.actorOf(current);
        // phase_busy comes before capacity: a busy server is not resized whatever the numbers.
        if (!accepts(actor, { type: 'UPDATE', at: nowIso(this.deps) })) throw this.busy(actor);
        await this.room.requireRoomOn(current.nodeId, input.resources, serverId);
      }
      const { network, ...fields } = input;
      const event: ServerEvent = { type: 'UPDATE', at: nowIso(this.deps), ...fields, ...(network ? { egressAllow: network.egressAllow } : {}) };
      if (options.dryRun) return this.detail(previewRecord(current, event, nowIso(this.deps)));
      const updated = await this.apply(current, event);
      if (input.inNetwork === false) await this.leaveLobby(serverId);
      return this.detail(updated);
    });
  }

  /** A server that leaves the network, or goes, is no longer its lobby. */
  private async leaveLobby(serverId: string): Promise<void> {
    await this.deps.repos.network.update({ _id: networkId, lobbyServerId: serverId }, { updatedAt: nowIso(this.deps) }, ['lobbyServerId']);
  }

  async acknowledge(caller: Caller, serverId: string, condition: string, audit: AuditScope) {
    audit.target(serverId).detail({ condition });
    const doc = await this.load(caller, serverId, 'servers.start');
    const found = this.detail(doc).conditions.find((c) => c.id === condition || c.reason === condition);
    if (!found) throw new DomainError('not_found', `The server has no condition ${condition}.`);
    audit.detail({ conditionId: found.id, reason: found.reason });
    return this.detail(await this.apply(doc, { type: 'ACKNOWLEDGE', at: nowIso(this.deps), conditionId: found.id }));
  }

  async reinstall(caller: Caller, serverId: string, audit: AuditScope) {
    audit.target(serverId);
    const doc = await this.load(caller, serverId, 'servers.update');
    audit.detail({ failure: doc.failure, failureReason: doc.failureReason });
    requireReinstallable(doc, () => this.busy(this.actorOf(doc)));
    // A failed install held no room (holdsRoom, domain/placement.ts): the retry takes it again, or is refused.
    return this.locks.run('placement', async () => {
      const current = (await this.deps.repos.servers.findById(serverId)) ?? doc;
      if (current.nodeId) await this.room.requireRoomOn(current.nodeId, current.desired.resources, serverId);
      return this.detail(await this.apply(current, { type: 'REINSTALL', at: nowIso(this.deps) }));
    });
  }

  async delete(caller: Caller, serverId: string, audit: AuditScope) {
    audit.target(serverId);
    const doc = await this.load(caller, serverId, 'servers.delete');
    audit.detail({ name: doc.name });
    const deleting = await this.apply(doc, { type: 'DELETE', at: nowIso(this.deps) });
    await this.leaveLobby(serverId);
    return this.detail(deleting);
  }

  /**
   * Sends an event to the server's actor under its lock and persists the outcome (with a new
   * observed status, for reports, and placement fields that change with it: a new port, or a
   * migration's switch to another Node).
   */
  async apply(doc: ServerDoc, event: ServerEvent, observed?: ServerDoc['observed'], placement: Pick<Partial<ServerDoc>, 'gamePort' | 'nodeId'> = {}): Promise<ServerDoc> {
    return this.locks.run(doc._id, async () => {
      const stored = (await this.deps.repos.servers.findById(doc._id)) ?? doc;
      const current = { ...stored, ...placement };
      const actor = this.actorOf(current);
      if (!accepts(actor, event)) throw this.busy(actor);
      actor.send(event);
      return this.persist(current, actor, observed ?? current.observed);
    });
  }

  /**
   * Applies an Agent report under the server's lock (in arrival order, never interleaved with a
   * command's read and write): settled unread when what is known of the record says it changes
   * nothing, else decided on the record as it is now. Without an event it needs no actor.
   */
  async observe(serverId: string, report: ObservedReport): Promise<void> {
    await this.locks.run(serverId, async () => {
      const known = this.observedMemo.get(serverId);
      if (known && report.unchanged(known)) return;
      const current = await this.deps.repos.servers.findById(serverId);
      if (!current) {
        this.observedMemo.forget(serverId);
        return;
      }
      this.observedMemo.saw(current);
      const outcome = report.decide(current);
      if (!outcome) return;
      if (!outcome.event) {
        await this.persistObserved(current, outcome.observed);
        return;
      }
      const actor = this.actorOf(current);
      if (!accepts(actor, outcome.event)) return;
      actor.send(outcome.event);
      await this.persist(current, actor, outcome.observed);
    });
  }

  busy = busyError;

  actorOf(doc: ServerDoc): ServerActor {
    return this.fleet.get(doc._id) ?? this.fleet.restore(doc);
  }

  /**
   * Writes the actor's outcome. A server whose actor finished (DELETED) is removed for good,
   * which releases its reservation and port. If the write fails, the actor is rebuilt from the
   * store so memory never runs ahead of what was persisted.
   */
  async persist(before: ServerDoc, actor: ServerActor, observed = before.observed): Promise<ServerDoc> {
    if (machineState(actor).done) {
      await this.deps.repos.servers.delete({ _id: before._id });
      this.observedMemo.forget(before._id);
      this.fleet.remove(before._id);
      this.changes.publish({ doc: before, deleted: true });
      return before;
    }
    const next = nextRecord(before, actor, observed, nowIso(this.deps));
    try {
      await this.deps.repos.servers.replace({ _id: before._id }, next);
    } catch (e) {
      this.observedMemo.forget(before._id);
      this.fleet.remove(before._id);
      this.fleet.restore(before);
      throw e;
    }
    this.observedMemo.saw(next);
    // A hold begun or lifted changes what the Node is told as much as a new generation does.
    if ((next.generation !== before.generation || Boolean(next.workflow?.hold) !== Boolean(before.workflow?.hold)) && next.nodeId) this.nodes.desiredStateChanged(next.nodeId, [next]);
    this.changed(next);
    return next;
  }

  /** A new observed status alone: the machine's fields stay the record's, and so does what the Node is told. */
  private async persistObserved(current: ServerDoc, observed: ServerObserved): Promise<void> {
    const { snapshot: _s, ...rest } = current as ServerDoc & { snapshot?: unknown };
    const next: ServerDoc = { ...rest, observed, updatedAt: nowIso(this.deps) };
    try {
      await this.deps.repos.servers.replace({ _id: current._id }, next);
    } catch (e) {
      this.observedMemo.forget(current._id);
      throw e;
    }
    this.observedMemo.saw(next);
    this.changed(next);
  }

  changed(doc: ServerDoc): void {
    this.changes.publish({ doc, deleted: false });
  }
}
