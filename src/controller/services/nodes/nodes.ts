import type { NodeFleet } from '../../actors/fleet.js';
import { initialStatus } from '../../actors/fleet.js';
import type { AdminEvent } from '../../actors/node-machine.js';
import type { AdminState } from '../../schemas/nodes.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, forbidden, invalidRequest, DomainError } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { isNodeAddress } from '../../../shared/node-address.js';
import { mayGlobally, unscoped } from '../../domain/permissions.js';
import type { Reservation } from '../../domain/server-spec.js';
import { cutOffNode } from '../../link/cut-off.js';
import type { AgentSessions } from '../../link/session-registry.js';
import { isDuplicateKey, type Filter } from '../../store/collection.js';
import type { NodeDoc } from '../../store/records.js';
import type { AgentLink } from '../../schemas/agent-link.js';
import { hidden, type Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { NodeEnrollment } from './enrollment.js';
import { NodeStatusWriter } from './status-writer.js';
import { noReservation, nodeView, type NodeView } from './node-view.js';
import type { ServerPlacements } from '../placement/placements.js';
import type { NodeOwnership } from '../../core/node-ownership.js';

const duplicateNode = () => conflict('A Node with that name already exists.');
const adminEvents = { enable: { type: 'ENABLE' }, disable: { type: 'DISABLE' } } as const;

/**
 * Nodes over HTTP: create (with a one-time enrollment token), read, change the address, the
 * admin states, re-issue tokens and delete. Reads merge the stored record with the fleet's live
 * state and the servers' reservations. The service owns the Node actors' lifecycle: it
 * rehydrates them, persists what they observe, and stops them.
 */
export class NodeService {
  private readonly statusWriter: NodeStatusWriter;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly fleet: NodeFleet,
    private readonly agents: AgentSessions,
    private readonly enrollment: NodeEnrollment,
    private readonly placements: ServerPlacements,
    private readonly ownership: NodeOwnership,
  ) {
    this.statusWriter = new NodeStatusWriter(deps.repos, deps.logger, (nodeId) => ownership.termFor(nodeId));
    fleet.subscribe((state) => this.statusWriter.write(state));
  }

  /** Loads the credential key pair (generated at first start) and rehydrates the Node actors. */
  async start(): Promise<void> {
    await this.enrollment.start();
    for (const doc of await this.deps.repos.nodes.find({})) this.fleet.add(doc);
  }

  /** Stops every Node actor, then writes each Node's last usage and heartbeat time. */
  async stop(): Promise<void> {
    await this.statusWriter.flush(this.fleet.stop());
  }

  async create(caller: Caller, input: { name: string; address?: string }, audit: AuditScope) {
    this.access.requireGlobal(caller, 'nodes.manage');
    const address = this.checkAddress(input.address ?? '');
    const doc = this.newNode(input.name, address);
    audit.target(doc._id).detail({ name: doc.name, address });
    const live = await this.insert(doc);
    const issued = await this.enrollment.issueToken(doc._id);
    return { node: nodeView(doc, live, noReservation()), enrollmentToken: issued.token, enrollmentExpiresAt: issued.expiresAt };
  }

  /**
   * A Node the Controller creates on its own behalf (the `--local-agent` Node): there is no caller,
   * maybe no user yet, so whoever calls this audits it as SYSTEM.
   */
  async createForController(name: string): Promise<NodeDoc> {
    const doc = this.newNode(name, '');
    await this.insert(doc);
    return doc;
  }

  /** Where Agents dial the Controller, for the enrollment command line: told to those who create Nodes. */
  agentLink(caller: Caller, link: AgentLink): AgentLink {
    this.access.requireGlobal(caller, 'nodes.manage');
    return link;
  }

  async findByName(name: string): Promise<NodeDoc | null> {
    return this.deps.repos.nodes.findOne({ nameKey: name.toLowerCase() });
  }

  private newNode(name: string, address: string): NodeDoc {
    const now = nowIso(this.deps);
    return {
      _id: this.deps.ids.next(), name, nameKey: name.toLowerCase(), address, adminState: 'ENABLED',
      status: initialStatus(), conditions: [], createdAt: now, updatedAt: now,
    };
  }

  private async insert(doc: NodeDoc) {
    try {
      await this.deps.repos.nodes.insert(doc);
    } catch (e) {
      if (isDuplicateKey(e)) throw duplicateNode();
      throw e;
    }
    return this.fleet.add(doc);
  }

  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    const scope = await this.visibleScope(caller);
    const result = await paginate<NodeDoc, string>(
      page,
      (after, limit) => this.deps.repos.nodes.find(after === undefined ? scope : { $and: [scope, { _id: { $gt: after } }] }, { sort: { _id: 1 }, limit }),
      (n) => n._id,
    );
    return { ...result, items: await this.views(result.items) };
  }

  async get(caller: Caller, nodeId: string): Promise<NodeView> {
    const doc = await this.visibleNode(caller, nodeId);
    return (await this.views([doc]))[0];
  }

  async update(caller: Caller, nodeId: string, input: { address: string }, audit: AuditScope): Promise<NodeView> {
    audit.target(nodeId).detail({ address: input.address });
    const doc = await this.manageableNode(caller, nodeId);
    const address = this.checkAddress(input.address);
    const updated: NodeDoc = { ...doc, address, updatedAt: nowIso(this.deps) };
    await this.deps.repos.nodes.update({ _id: nodeId }, { address, updatedAt: updated.updatedAt });
    this.fleet.setAddress(nodeId, address);
    return (await this.views([updated]))[0];
  }

  enable(caller: Caller, nodeId: string, audit: AuditScope) {
    return this.changeAdmin(caller, nodeId, adminEvents.enable, audit);
  }

  disable(caller: Caller, nodeId: string, audit: AuditScope) {
    return this.changeAdmin(caller, nodeId, adminEvents.disable, audit);
  }

  /** Final: the credential stops working and an open stream is closed at once. */
  async revoke(caller: Caller, nodeId: string, audit: AuditScope) {
    const view = await this.changeAdmin(caller, nodeId, { type: 'REVOKE', at: nowIso(this.deps) }, audit);
    await this.enrollment.forgetTokens(nodeId);
    cutOffNode(this.agents, nodeId, 'revoked');
    return view;
  }

  /** A new one-time token (re-enrolling a reinstalled host); the Node's current credential keeps working until it is used. */
  async issueEnrollmentToken(caller: Caller, nodeId: string, audit: AuditScope) {
    audit.target(nodeId);
    const doc = await this.manageableNode(caller, nodeId);
    if (doc.adminState === 'REVOKED') throw new DomainError('invalid_transition', 'The Node is revoked; create a new Node instead.');
    const issued = await this.enrollment.issueToken(nodeId);
    audit.detail({ expiresAt: issued.expiresAt });
    return { node: (await this.views([doc]))[0], enrollmentToken: issued.token, enrollmentExpiresAt: issued.expiresAt };
  }

  async delete(caller: Caller, nodeId: string, audit: AuditScope): Promise<void> {
    audit.target(nodeId);
    const doc = await this.manageableNode(caller, nodeId);
    audit.detail({ name: doc.name });
    const reason = await this.placements.nodeInUse(nodeId);
    if (reason) throw conflict(`The Node cannot be deleted: ${reason}.`);
    await this.deps.repos.nodes.delete({ _id: nodeId });
    await this.enrollment.forgetTokens(nodeId);
    this.fleet.remove(nodeId);
    cutOffNode(this.agents, nodeId, 'deleted');
  }

  private async changeAdmin(caller: Caller, nodeId: string, event: AdminEvent, audit: AuditScope): Promise<NodeView> {
    audit.target(nodeId);
    const doc = await this.manageableNode(caller, nodeId);
    const target: AdminState = event.type === 'ENABLE' ? 'ENABLED' : event.type === 'DISABLE' ? 'DISABLED' : 'REVOKED';
    audit.detail({ from: doc.adminState, to: target });
    // A Node created through another Controller after this one started: its record is the truth.
    if (!this.fleet.has(nodeId)) this.fleet.add(doc);
    const verdict = this.fleet.checkAdmin(nodeId, event);
    if (verdict === 'refused') throw new DomainError('invalid_transition', `A ${doc.adminState} Node cannot become ${target}.`);
    if (verdict === 'unknown') throw hidden('node');
    if (verdict === 'allowed') {
      // Persist before answering (and before the actor moves), so a restart never forgets an admin decision.
      const set: Partial<NodeDoc> = { adminState: target, updatedAt: nowIso(this.deps) };
      await this.deps.repos.nodes.update({ _id: nodeId }, set, target === 'REVOKED' ? ['credentialId'] : []);
      this.fleet.applyAdmin(nodeId, event);
    }
    return (await this.views([{ ...doc, adminState: target }]))[0];
  }

  private checkAddress(address: string): string {
    if (!isNodeAddress(address)) throw invalidRequest('body.address: must be a host name or an IP address, without a port.');
    return address;
  }

  private canManage(caller: Caller): boolean {
    return mayGlobally(caller, 'nodes.manage');
  }

  /** Managers see every Node; others see the Nodes their teams' servers run on (where they hold nodes.read). */
  private async visibleScope(caller: Caller): Promise<Filter> {
    if (this.canManage(caller)) return {};
    const teams = (await this.access.teamsWith(caller, 'nodes.read')) ?? [];
    const ids = teams.length === 0 ? [] : await this.placements.nodesOfTeams(teams);
    return { _id: { $in: ids } };
  }

  /** Not found for a Node its owner cannot see; forbidden for one a scoped token's scope leaves out. */
  private async visibleNode(caller: Caller, nodeId: string): Promise<NodeDoc> {
    const doc = await this.deps.repos.nodes.findOne({ $and: [await this.visibleScope(unscoped(caller)), { _id: nodeId }] });
    if (!doc) throw hidden('node');
    if (caller.scope && !(await this.deps.repos.nodes.findOne({ $and: [await this.visibleScope(caller), { _id: nodeId }] }))) {
      throw forbidden('This API token\'s scope does not include nodes.read for this Node.');
    }
    return doc;
  }

  /** Not found for a Node the caller cannot see; forbidden for one it sees but may not change. */
  private async manageableNode(caller: Caller, nodeId: string): Promise<NodeDoc> {
    const doc = await this.visibleNode(caller, nodeId);
    if (!this.canManage(caller)) throw forbidden('You need the global permission nodes.manage.');
    return doc;
  }

  /** The live state is this Controller's only for the Nodes it drives; the others' is what their holders wrote. */
  private async views(docs: NodeDoc[]): Promise<NodeView[]> {
    const ids = docs.map((d) => d._id);
    const [reserved, holders] = docs.length === 0
      ? [new Map<string, Reservation>(), new Map<string, string>()]
      : await Promise.all([this.placements.reservations(ids), this.ownership.holders(ids)]);
    return docs.map((d) => {
      const live = this.ownership.termFor(d._id) === undefined ? undefined : this.fleet.state(d._id);
      return nodeView(d, live, reserved.get(d._id) ?? noReservation(), holders.get(d._id));
    });
  }
}
