import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import type { NodeDirectory } from '../../core/node-directory.js';
import { DomainError } from '../../core/errors.js';
import type { Permission } from '../../core/permission-names.js';
import type { ServerEvent } from '../../actors/server-machine.js';
import { paginate } from '../../domain/cursor.js';
import { networkId } from '../../domain/network.js';
import { requireJoinable, requireJoinableTemplate, requireMaySetEgress, requireReinstallable, requireSleepable, requireTemplateKind, sleepOf } from '../../domain/server-refusals.js';
import { serverName } from '../../domain/server-name.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import type { ServerDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { hidden, type Access } from '../identity/access.js';
import { previewRecord } from './actor-record.js';
import type { ServerAggregate } from './aggregate.js';
import type { ChangeOptions, CreateServerInput, ServerListQuery, ServerUpdateInput } from './inputs.js';
import { walkServerList } from './list-walk.js';
import { requireMayJoinNetwork } from './network-admission.js';
import type { PlacementTurn } from './placement-turn.js';
import type { ServerRoom } from './room.js';
import type { ServerCreation } from './server-creation.js';
import { chooseSoftware } from './software-choice.js';
import type { ServerListItemView } from './views.js';

/**
 * The servers API's use cases (POST, GET, PATCH and DELETE /servers, power, acknowledge,
 * reinstall): who may, what is refused, and the answer. Every change goes through the server
 * aggregate, whose actor accepts or refuses it (`phase_busy`); other capabilities use the
 * aggregate, never this.
 */
export class ServerService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly servers: ServerAggregate,
    private readonly templates: TemplateCatalog,
    private readonly nodes: Pick<NodeDirectory, 'isConnected'>,
    private readonly placing: PlacementTurn,
    private readonly creation: ServerCreation,
  ) {}

  async create(caller: Caller, raw: CreateServerInput, audit: AuditScope, options: ChangeOptions = {}) {
    const input = { ...raw, name: serverName(raw.name) };
    audit.detail({ name: input.name, teamId: input.teamId, software: input.software, resources: input.resources, ...(input.network ? { network: input.network } : {}), ...(input.sleep ? { sleep: input.sleep } : {}) });
    const team = await this.deps.repos.teams.findById(input.teamId);
    if (!team) throw hidden('team');
    await this.access.require(caller, input.teamId, 'servers.create', 'team', 'servers.read');
    requireMaySetEgress(caller, [], input.network?.egressAllow);
    const { template, software } = await chooseSoftware(this.templates, input.software);
    requireTemplateKind(template.kind, 'GAME_SERVER');
    requireSleepable('GAME_SERVER', template, input.sleep);
    if (input.inNetwork) {
      requireJoinableTemplate(template);
      await requireMayJoinNetwork(this.deps, this.access, caller, input.teamId);
    }
    return this.servers.detail(await this.creation.place('GAME_SERVER', { ...input, software, inNetwork: input.inNetwork ?? false }, async () => input.teamId, undefined, audit, options));
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
    const doc = await this.servers.load(caller, serverId, 'servers.read');
    return this.servers.detail(doc, await this.access.may(caller, doc.teamId, 'servers.console'));
  }

  /** One entry for power actions, as every later workflow's entry is: the actor decides. */
  async power(caller: Caller, serverId: string, action: 'START' | 'STOP' | 'RESTART', audit: AuditScope) {
    audit.target(serverId);
    const permission: Permission = action === 'STOP' ? 'servers.stop' : 'servers.start';
    const doc = await this.servers.load(caller, serverId, permission);
    const event: ServerEvent = action === 'START' ? { type: 'START', at: nowIso(this.deps), asleep: doc.observed.sleeping !== undefined } : { type: action, at: nowIso(this.deps) };
    return this.servers.detail(await this.servers.apply(doc, event));
  }

  async update(caller: Caller, serverId: string, input: ServerUpdateInput, audit: AuditScope, options: ChangeOptions = {}) {
    audit.target(serverId).detail({ ...input });
    const doc = await this.servers.load(caller, serverId, 'servers.update');
    requireMaySetEgress(caller, doc.desired.egressAllow ?? [], input.network?.egressAllow);
    requireSleepable(doc.kind, this.templates.get(doc.desired.software.template), input.sleep);
    if (input.inNetwork) {
      requireJoinable(doc.kind, this.templates.get(doc.desired.software.template)?.networkMember);
      await requireMayJoinNetwork(this.deps, this.access, caller, doc.teamId);
    }
    const read = async () => (await this.deps.repos.servers.findById(serverId)) ?? doc;
    // A server on its Node and in no workflow changes only that Node's room: its turn is enough.
    const nodeId = doc.nodeId && !doc.workflow ? doc.nodeId : undefined;
    if (nodeId) {
      const done = await this.placing.runOnNode(nodeId, async (room) => {
        const current = await read();
        // Moved or in a workflow since it was loaded: decided fleet-wide below instead.
        if (current.nodeId !== nodeId || current.workflow) return undefined;
        return this.decideUpdate(room, current, input, options);
      });
      if (done) return done;
    }
    return this.placing.run(async (room) => this.decideUpdate(room, await read(), input, options));
  }

  /** A resize and the other fields of a PATCH, in a placement turn that covers `current`'s Node. */
  private async decideUpdate(room: ServerRoom, current: ServerDoc, input: ServerUpdateInput, options: ChangeOptions) {
    if (input.resources && current.nodeId) {
      // phase_busy comes before capacity: a busy server is not resized whatever the numbers.
      this.servers.requireAccepts(current, { type: 'UPDATE', at: nowIso(this.deps) });
      await room.requireRoomOn(current.nodeId, input.resources, current._id);
    }
    const { network, sleep, ...fields } = input;
    const event: ServerEvent = {
      type: 'UPDATE', at: nowIso(this.deps), ...fields, ...(network ? { egressAllow: network.egressAllow } : {}), ...(sleep !== undefined ? { sleep: sleepOf(sleep) } : {}),
    };
    if (options.dryRun) return this.servers.detail(previewRecord(current, event, nowIso(this.deps)));
    const updated = await this.servers.apply(current, event);
    if (input.inNetwork === false) await this.leaveLobby(current._id);
    return this.servers.detail(updated);
  }

  /** A server that leaves the network, or goes, is no longer its lobby. */
  private async leaveLobby(serverId: string): Promise<void> {
    await this.deps.repos.network.update({ _id: networkId, lobbyServerId: serverId }, { updatedAt: nowIso(this.deps) }, ['lobbyServerId']);
  }

  async acknowledge(caller: Caller, serverId: string, condition: string, audit: AuditScope) {
    audit.target(serverId).detail({ condition });
    const doc = await this.servers.load(caller, serverId, 'servers.start');
    const found = this.servers.detail(doc).conditions.find((c) => c.id === condition || c.reason === condition);
    if (!found) throw new DomainError('not_found', `The server has no condition ${condition}.`);
    audit.detail({ conditionId: found.id, reason: found.reason });
    return this.servers.detail(await this.servers.apply(doc, { type: 'ACKNOWLEDGE', at: nowIso(this.deps), conditionId: found.id }));
  }

  async reinstall(caller: Caller, serverId: string, audit: AuditScope) {
    audit.target(serverId);
    const doc = await this.servers.load(caller, serverId, 'servers.update');
    audit.detail({ failure: doc.failure, failureReason: doc.failureReason });
    requireReinstallable(doc, () => this.servers.busy(doc));
    // A failed install held no room (holdsRoom, domain/placement.ts): the retry takes it again, or is refused.
    return this.placing.run(async (room) => {
      const current = (await this.deps.repos.servers.findById(serverId)) ?? doc;
      if (current.nodeId) await room.requireRoomOn(current.nodeId, current.desired.resources, serverId);
      return this.servers.detail(await this.servers.apply(current, { type: 'REINSTALL', at: nowIso(this.deps) }));
    });
  }

  async delete(caller: Caller, serverId: string, audit: AuditScope) {
    audit.target(serverId);
    const doc = await this.servers.load(caller, serverId, 'servers.delete');
    audit.detail({ name: doc.name });
    const deleting = await this.servers.apply(doc, { type: 'DELETE', at: nowIso(this.deps) });
    await this.leaveLobby(serverId);
    return this.servers.detail(deleting);
  }
}
