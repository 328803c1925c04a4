import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { accepts, machineState, type ServerActor, type ServerFleet } from '../actors/server-fleet.js';
import type { ServerEvent } from '../actors/server-machine.js';
import { encodeCursor, decodeCursor } from '../domain/cursor.js';
import type { Permission } from '../domain/permissions.js';
import { bestFit, fits, freeOf, pickPort } from '../domain/placement.js';
import { defaultRestartPolicy, emptyObserved, type Resources, type ServerDesired, type ServerObserved } from '../domain/server-spec.js';
import type { AuditScope } from '../http/audit-scope.js';
import type { Caller } from '../http/caller.js';
import { invalidRequest, ProblemError } from '../http/problem.js';
import type { ServerDoc } from '../store/records.js';
import type { TemplateCatalog } from '../templates/template-catalog.js';
import { hidden, type Access } from './access.js';
import { nowIso, type ServiceDeps } from './deps.js';
import { defaultGamePorts, type NodeGateway } from './node-gateway.js';
import type { ServerWatchHub } from './server-watch.js';
import { serverDetail, serverListItem } from './server-views.js';

export interface CreateServerInput {
  name: string;
  teamId: string;
  software: { template: string; version: string; build?: string };
  resources: Resources;
  nodeId?: string;
  inNetwork?: boolean;
  restartPolicy?: { maxRestarts: number; windowSeconds: number };
}

export interface ServerListQuery {
  limit: number;
  cursor?: string;
  teamId?: string;
  nodeId?: string;
  convergence?: string;
}

const zero: Resources = { cpuMillis: 0, memoryBytes: 0 };
const add = (a: Resources, b: Resources): Resources => ({ cpuMillis: a.cpuMillis + b.cpuMillis, memoryBytes: a.memoryBytes + b.memoryBytes });

/**
 * Servers: desired spec in, observed status out. Every command goes through the server's actor,
 * which accepts or refuses it (`phase_busy`); the new desired spec and the actor's snapshot are
 * persisted before the caller is answered, then the Node is told.
 */
export class ServerService {
  private readonly locks = new KeyedMutex();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly fleet: ServerFleet,
    private readonly templates: TemplateCatalog,
    private readonly nodes: NodeGateway,
    private readonly watch: ServerWatchHub,
  ) {}

  /** Rehydrates every server actor from the store. */
  async init(): Promise<void> {
    for (const doc of await this.deps.repos.servers.find({})) this.fleet.restore(doc);
  }

  private connected = (doc: ServerDoc) => (doc.nodeId ? this.nodes.isConnected(doc.nodeId) : false);
  detail = (doc: ServerDoc) => serverDetail(doc, this.connected(doc));
  listItem = (doc: ServerDoc) => serverListItem(doc, this.connected(doc));

  /** The server, if the caller may see it and holds `permission` in its team. */
  async load(caller: Caller, serverId: string, permission: Permission): Promise<ServerDoc> {
    const doc = await this.deps.repos.servers.findById(serverId);
    if (!doc) throw hidden('server');
    await this.access.require(caller, doc.teamId, permission, 'server', 'servers.read');
    return doc;
  }

  async reservedOn(nodeId: string): Promise<Resources> {
    const servers = await this.deps.repos.servers.find({ nodeId });
    return servers.reduce((sum, s) => add(sum, s.desired.resources), zero);
  }

  async create(caller: Caller, input: CreateServerInput, audit: AuditScope) {
    audit.detail({ name: input.name, teamId: input.teamId, software: input.software, resources: input.resources });
    const team = await this.deps.repos.teams.findById(input.teamId);
    if (!team) throw hidden('team');
    await this.access.require(caller, input.teamId, 'servers.create', 'team', 'servers.read');
    const template = this.templates.get(input.software.template);
    if (!template) throw invalidRequest(`body.software.template: no template ${input.software.template}.`);
    if (!template.versions.includes(input.software.version)) {
      throw invalidRequest(`body.software.version: ${template.id} offers ${template.versions.join(', ')}.`);
    }
    if (template.kind !== 'GAME_SERVER') throw invalidRequest('body.software.template: a proxy is created with POST /network/proxy.');
    if (input.inNetwork && !template.networkMember) throw new ProblemError('not_network_capable', `${template.id} servers cannot join the network.`);

    // Placement and port choice read every reservation: one at a time, so two creates cannot both take the last room.
    return this.locks.run('placement', async () => {
      const nodeId = await this.place(input.resources, input.nodeId);
      const gamePort = await this.allocatePort(nodeId);
      const at = nowIso(this.deps);
      const id = this.deps.ids.next();
      const desired: ServerDesired = {
        state: 'STOPPED',
        software: input.software,
        resources: input.resources,
        inNetwork: input.inNetwork ?? false,
        restartPolicy: input.restartPolicy ?? defaultRestartPolicy,
        acknowledgedConditions: [],
        restartNonce: 0,
      };
      const actor = this.fleet.create(id, desired, at);
      const doc: ServerDoc = {
        _id: id, name: input.name, teamId: input.teamId, nodeId, kind: 'GAME_SERVER', gamePort,
        ...this.fromActor(actor), observed: emptyObserved(), createdAt: at, updatedAt: at,
      } as ServerDoc;
      try {
        await this.deps.repos.servers.insert(doc);
      } catch (e) {
        this.fleet.remove(id);
        throw e;
      }
      audit.target(id).detail({ nodeId, gamePort });
      this.nodes.desiredStateChanged(nodeId);
      this.changed(doc);
      return this.detail(doc);
    });
  }

  private async place(request: Resources, nodeId: string | undefined): Promise<string> {
    if (nodeId !== undefined) {
      const node = await this.nodes.get(nodeId);
      if (!node) throw invalidRequest(`body.nodeId: no Node ${nodeId}.`);
      if (!node.acceptsPlacements) throw new ProblemError('insufficient_capacity', 'That Node does not accept placements (disabled or not healthy).');
      if (!fits(freeOf({ allocatable: node.allocatable, reserved: await this.reservedOn(nodeId) }), request)) {
        throw new ProblemError('insufficient_capacity', 'The reservation does not fit on that Node.');
      }
      return nodeId;
    }
    const candidates = await Promise.all(
      (await this.nodes.list()).map(async (n) => ({ ...n, reserved: await this.reservedOn(n.nodeId) })),
    );
    const chosen = bestFit(candidates, request);
    if (!chosen) throw new ProblemError('insufficient_capacity', 'No Node that accepts placements has room for this reservation.');
    return chosen;
  }

  /** Nodes on one host share its ports, so a port is free only if no server on any of them holds it. */
  private async allocatePort(nodeId: string): Promise<number> {
    const node = await this.nodes.get(nodeId);
    const sameHost = (await this.nodes.list()).filter((n) => n.nodeId === nodeId || (node?.hostname && n.hostname === node.hostname));
    const servers = await this.deps.repos.servers.find({ nodeId: { $in: sameHost.map((n) => n.nodeId) } });
    const port = pickPort(defaultGamePorts, new Set(servers.flatMap((s) => (s.gamePort ? [s.gamePort] : []))));
    if (port === undefined) throw new ProblemError('insufficient_capacity', 'The Node has no free game port left.');
    return port;
  }

  async list(caller: Caller, query: ServerListQuery) {
    const teams = await this.access.teamsWith(caller.user, 'servers.read');
    const filter: Record<string, unknown>[] = [];
    if (teams) filter.push({ teamId: { $in: teams } });
    if (query.teamId) filter.push({ teamId: query.teamId });
    if (query.nodeId) filter.push({ nodeId: query.nodeId });
    let after: string | undefined;
    if (query.cursor !== undefined) {
      const key = decodeCursor(query.cursor);
      if (typeof key !== 'string') throw invalidRequest('cursor: not a cursor of this list.');
      after = key;
    }
    // Convergence is derived, not stored: filter while walking pages in creation order.
    const items: ReturnType<ServerService['listItem']>[] = [];
    let lastId = after;
    let more = false;
    for (;;) {
      const conditions = lastId === undefined ? filter : [...filter, { _id: { $gt: lastId } }];
      const batch = await this.deps.repos.servers.find(conditions.length ? { $and: conditions } : {}, { sort: { _id: 1 }, limit: query.limit + 1 });
      for (const doc of batch) {
        const item = this.listItem(doc);
        if (query.convergence && item.convergence !== query.convergence) {
          lastId = doc._id;
          continue;
        }
        if (items.length === query.limit) {
          more = true;
          break;
        }
        items.push(item);
        lastId = doc._id;
      }
      if (more || batch.length <= query.limit) break;
    }
    return more ? { items, nextCursor: encodeCursor(items[items.length - 1].id) } : { items };
  }

  async get(caller: Caller, serverId: string) {
    return this.detail(await this.load(caller, serverId, 'servers.read'));
  }

  /** One entry for power actions, as every later workflow's entry is: the actor decides. */
  async power(caller: Caller, serverId: string, action: 'START' | 'STOP' | 'RESTART', audit: AuditScope) {
    audit.target(serverId);
    const permission: Permission = action === 'STOP' ? 'servers.stop' : 'servers.start';
    const doc = await this.load(caller, serverId, permission);
    return this.detail(await this.apply(doc, { type: action, at: nowIso(this.deps) }));
  }

  async update(caller: Caller, serverId: string, input: { resources?: Resources; inNetwork?: boolean }, audit: AuditScope) {
    audit.target(serverId).detail({ ...input });
    const doc = await this.load(caller, serverId, 'servers.update');
    if (input.inNetwork) {
      const template = this.templates.get(doc.desired.software.template);
      if (!template?.networkMember) throw new ProblemError('not_network_capable', 'This server\'s template cannot join the network.');
    }
    return this.locks.run('placement', async () => {
      const current = (await this.deps.repos.servers.findById(serverId)) ?? doc;
      if (input.resources && current.nodeId) {
        const node = await this.nodes.get(current.nodeId);
        const reserved = await this.reservedOn(current.nodeId);
        const others = { cpuMillis: reserved.cpuMillis - current.desired.resources.cpuMillis, memoryBytes: reserved.memoryBytes - current.desired.resources.memoryBytes };
        const actor = this.actorOf(current);
        // phase_busy comes before capacity: a busy server is not resized whatever the numbers.
        if (!accepts(actor, { type: 'UPDATE', at: nowIso(this.deps) })) throw this.busy(actor);
        if (!node || !fits(freeOf({ allocatable: node.allocatable, reserved: others }), input.resources)) {
          throw new ProblemError('insufficient_capacity', 'The new reservation does not fit on the server\'s Node.');
        }
      }
      return this.detail(await this.apply(current, { type: 'UPDATE', at: nowIso(this.deps), ...input }));
    });
  }

  async acknowledge(caller: Caller, serverId: string, condition: string, audit: AuditScope) {
    audit.target(serverId).detail({ condition });
    const doc = await this.load(caller, serverId, 'servers.start');
    const found = doc.observed.conditions.find((c) => c.id === condition || c.reason === condition);
    if (!found) throw new ProblemError('not_found', `The server has no condition ${condition}.`);
    audit.detail({ conditionId: found.id, reason: found.reason });
    return this.detail(await this.apply(doc, { type: 'ACKNOWLEDGE', at: nowIso(this.deps), conditionId: found.id }));
  }

  async delete(caller: Caller, serverId: string, audit: AuditScope) {
    audit.target(serverId);
    const doc = await this.load(caller, serverId, 'servers.delete');
    audit.detail({ name: doc.name });
    return this.detail(await this.apply(doc, { type: 'DELETE', at: nowIso(this.deps) }));
  }

  /** Why a team cannot be deleted yet, if it has servers. */
  async teamInUse(teamId: string): Promise<string | undefined> {
    const count = await this.deps.repos.servers.count({ teamId });
    return count > 0 ? `it has ${count} server(s)` : undefined;
  }

  /** Sends an event to the server's actor under its lock and persists the outcome (with a new observed status, for reports). */
  async apply(doc: ServerDoc, event: ServerEvent, observed?: ServerDoc['observed']): Promise<ServerDoc> {
    return this.locks.run(doc._id, async () => {
      const current = (await this.deps.repos.servers.findById(doc._id)) ?? doc;
      const actor = this.actorOf(current);
      if (!accepts(actor, event)) throw this.busy(actor);
      actor.send(event);
      return this.persist(current, actor, observed ?? current.observed);
    });
  }

  /**
   * Applies an Agent report under the server's lock, on the record as it is now: `decide` says
   * what to write (an event for the actor and the observed status), or nothing. Reports are
   * handled in arrival order and never interleave with a command's read and write.
   */
  async observe(serverId: string, decide: (current: ServerDoc) => { event?: ServerEvent; observed: ServerObserved } | undefined): Promise<void> {
    await this.locks.run(serverId, async () => {
      const current = await this.deps.repos.servers.findById(serverId);
      const outcome = current ? decide(current) : undefined;
      if (!current || !outcome) return;
      const actor = this.actorOf(current);
      if (outcome.event) {
        if (!accepts(actor, outcome.event)) return;
        actor.send(outcome.event);
      }
      await this.persist(current, actor, outcome.observed);
    });
  }

  private busy(actor: ServerActor): ProblemError {
    const { phase, context } = machineState(actor);
    const doing = context.workflow ? ` (${context.workflow.kind.toLowerCase()}: ${context.workflow.step})` : '';
    return new ProblemError('phase_busy', `The server is ${phase}${doing}; try again when it is READY.`);
  }

  actorOf(doc: ServerDoc): ServerActor {
    return this.fleet.get(doc._id) ?? this.fleet.restore(doc);
  }

  private fromActor(actor: ServerActor): Pick<ServerDoc, 'phase' | 'generation' | 'desired' | 'workflow' | 'failure' | 'snapshot'> {
    const { phase, context } = machineState(actor);
    return {
      phase, generation: context.generation, desired: context.desired, snapshot: actor.getPersistedSnapshot(),
      ...(context.workflow ? { workflow: context.workflow } : {}),
      ...(context.failure ? { failure: context.failure } : {}),
    };
  }

  /**
   * Writes the actor's outcome. A server whose actor finished (DELETED) is removed for good,
   * which releases its reservation and port. If the write fails, the actor is rebuilt from the
   * store so memory never runs ahead of what was persisted.
   */
  async persist(before: ServerDoc, actor: ServerActor, observed = before.observed): Promise<ServerDoc> {
    if (machineState(actor).done) {
      await this.deps.repos.servers.delete({ _id: before._id });
      this.fleet.remove(before._id);
      this.watch.publish({ doc: before, deleted: true });
      return before;
    }
    const { workflow: _w, failure: _f, ...rest } = before;
    const next: ServerDoc = { ...rest, ...this.fromActor(actor), observed, updatedAt: nowIso(this.deps) };
    try {
      await this.deps.repos.servers.replace({ _id: before._id }, next);
    } catch (e) {
      this.fleet.remove(before._id);
      this.fleet.restore(before);
      throw e;
    }
    if (next.generation !== before.generation && next.nodeId) this.nodes.desiredStateChanged(next.nodeId);
    this.changed(next);
    return next;
  }

  changed(doc: ServerDoc): void {
    this.watch.publish({ doc, deleted: false });
  }
}
