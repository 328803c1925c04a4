import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { isGlobalAdmin } from '../../domain/permissions.js';
import { Listeners } from '../../../shared/listeners.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { MembershipDoc, TeamDoc } from '../../store/records.js';
import { hidden, type Access } from './access.js';
import type { AccessEvents } from './access-events.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { RoleService } from './roles.js';
import type { ServerPlacements } from '../placement/placements.js';
import { teamView } from './views.js';

const duplicateTeam = () => conflict('A team with that name already exists.');
const membershipView = (m: MembershipDoc) => ({ userId: m.userId, teamId: m.teamId, roleIds: m.roleIds });

/**
 * Teams and memberships. Global administrators manage them; members can see their own teams.
 * A team that still has servers cannot be deleted.
 */
export class TeamService {
  /** A team was deleted: what other capabilities kept for it (its webhooks) goes with it. */
  readonly deleted = new Listeners<[teamId: string]>();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly roles: RoleService,
    private readonly placements: ServerPlacements,
    private readonly accessEvents: AccessEvents,
  ) {}

  /** Checked before any admin requirement: a caller outside the team must not learn it exists. */
  private async visibleTeam(caller: Caller, teamId: string): Promise<TeamDoc> {
    const team = await this.deps.repos.teams.findById(teamId);
    if (!team || !(caller.user.globalAdmin || (await this.access.isMember(caller.user, teamId)))) throw hidden('team');
    return team;
  }

  async create(caller: Caller, input: { name: string }, audit: AuditScope) {
    this.access.requireGlobalAdmin(caller);
    const now = nowIso(this.deps);
    const doc: TeamDoc = { _id: this.deps.ids.next(), name: input.name, nameKey: input.name.toLowerCase(), createdAt: now, updatedAt: now };
    audit.target(doc._id).detail({ name: doc.name });
    try {
      await this.deps.repos.teams.insert(doc);
    } catch (e) {
      if (isDuplicateKey(e)) throw duplicateTeam();
      throw e;
    }
    return teamView(doc);
  }

  /**
   * The team named `name`, made when missing (where the network's proxy goes unless told otherwise).
   * A team made here is `internal`: Cairn made it, so clients need not offer it for new servers; a
   * team of that name an administrator made first stays theirs, unmarked.
   */
  async ensure(name: string): Promise<{ team: TeamDoc; created: boolean }> {
    const nameKey = name.toLowerCase();
    const found = await this.deps.repos.teams.findOne({ nameKey });
    if (found) return { team: found, created: false };
    const now = nowIso(this.deps);
    const team: TeamDoc = { _id: this.deps.ids.next(), name, nameKey, internal: true, createdAt: now, updatedAt: now };
    try {
      await this.deps.repos.teams.insert(team);
      return { team, created: true };
    } catch (e) {
      const raced = isDuplicateKey(e) ? await this.deps.repos.teams.findOne({ nameKey }) : null;
      if (!raced) throw e;
      return { team: raced, created: false };
    }
  }

  /**
   * The teams the caller belongs to (every team for global administrators), in creation order; a
   * scoped token's only within its teams.
   */
  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    const scope = await this.listedTeams(caller);
    const result = await paginate<TeamDoc, string>(
      page,
      (after, limit) => this.deps.repos.teams.find(after === undefined ? scope : { $and: [scope, { _id: { $gt: after } }] }, { sort: { _id: 1 }, limit }),
      (t) => t._id,
    );
    return { ...result, items: result.items.map(teamView) };
  }

  private async listedTeams(caller: Caller) {
    const scoped = caller.scope?.teamIds;
    if (scoped && caller.user.globalAdmin) return { _id: { $in: [...scoped] } };
    if (isGlobalAdmin(caller)) return {};
    const member = (await this.deps.repos.memberships.find({ userId: caller.user._id })).map((m) => m.teamId);
    return { _id: { $in: scoped ? member.filter((t) => scoped.has(t)) : member } };
  }

  async get(caller: Caller, teamId: string) {
    const team = await this.visibleTeam(caller, teamId);
    return { ...teamView(team), createdAt: team.createdAt };
  }

  async rename(caller: Caller, teamId: string, input: { name: string }, audit: AuditScope) {
    audit.target(teamId).detail({ name: input.name });
    const team = await this.visibleTeam(caller, teamId);
    this.access.requireGlobalAdmin(caller);
    const set = { name: input.name, nameKey: input.name.toLowerCase(), updatedAt: nowIso(this.deps) };
    try {
      await this.deps.repos.teams.update({ _id: teamId }, set);
    } catch (e) {
      if (isDuplicateKey(e)) throw duplicateTeam();
      throw e;
    }
    return { ...teamView({ ...team, ...set }), createdAt: team.createdAt };
  }

  async delete(caller: Caller, teamId: string, audit: AuditScope): Promise<void> {
    audit.target(teamId);
    const team = await this.visibleTeam(caller, teamId);
    this.access.requireGlobalAdmin(caller);
    audit.detail({ name: team.name });
    const reason = await this.placements.teamInUse(teamId);
    if (reason) throw conflict(`The team cannot be deleted: ${reason}.`);
    const members = await this.deps.repos.memberships.find({ teamId });
    await this.deps.repos.memberships.delete({ teamId });
    await this.deps.repos.teams.delete({ _id: teamId });
    this.accessEvents.publishAll(members.map((m) => m.userId), 'team_deleted');
    this.deleted.emit(teamId);
  }

  /** Puts a user in a team with exactly these roles (replacing any it had there). */
  async setMembership(caller: Caller, teamId: string, userId: string, input: { roleIds: string[] }, audit: AuditScope) {
    audit.target(`${teamId}:${userId}`).detail({ teamId, userId, roleIds: input.roleIds });
    await this.visibleTeam(caller, teamId);
    this.access.requireGlobalAdmin(caller);
    if (!(await this.deps.repos.users.findById(userId))) throw hidden('user');
    await this.roles.requireExisting(input.roleIds);
    const now = nowIso(this.deps);
    const id = `${teamId}:${userId}`;
    const existing = await this.deps.repos.memberships.findById(id);
    const doc: MembershipDoc = {
      _id: id, teamId, userId, roleIds: input.roleIds, seq: existing?.seq ?? this.deps.ids.next(), createdAt: existing?.createdAt ?? now, updatedAt: now,
    };
    if (existing) await this.deps.repos.memberships.replace({ _id: id }, doc);
    else await this.deps.repos.memberships.insert(doc);
    // New roles may hold less than the old ones did.
    if (existing) this.accessEvents.publish({ userId, kind: 'membership_changed' });
    return membershipView(doc);
  }

  async listMembers(caller: Caller, teamId: string, page: { limit: number; cursor?: string }) {
    await this.visibleTeam(caller, teamId);
    const result = await paginate<MembershipDoc, string>(
      page,
      (after, limit) => this.deps.repos.memberships.find(after === undefined ? { teamId } : { teamId, seq: { $gt: after } }, { sort: { seq: 1 }, limit }),
      (m) => m.seq,
    );
    return { ...result, items: result.items.map(membershipView) };
  }

  async removeMember(caller: Caller, teamId: string, userId: string, audit: AuditScope): Promise<void> {
    audit.target(`${teamId}:${userId}`).detail({ teamId, userId });
    await this.visibleTeam(caller, teamId);
    this.access.requireGlobalAdmin(caller);
    const removed = await this.deps.repos.memberships.delete({ _id: `${teamId}:${userId}` });
    if (removed === 0) throw hidden('membership');
    this.accessEvents.publish({ userId, kind: 'membership_changed' });
  }
}
