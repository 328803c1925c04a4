import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, invalidRequest, notFound, DomainError } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { builtinRoleDefinitions } from '../../domain/permissions.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { RoleDoc } from '../../store/records.js';
import type { Access } from './access.js';
import type { AccessEvents } from './access-events.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { roleView } from './views.js';

const duplicateRole = () => conflict('A role with that name already exists.');

export class RoleService {
  constructor(private readonly deps: ServiceDeps, private readonly access: Access, private readonly accessEvents: AccessEvents) {}

  /** Creates the built-in roles on first start (and any added by a newer version). */
  async seedBuiltins(): Promise<void> {
    for (const def of builtinRoleDefinitions) {
      const existing = await this.deps.repos.roles.findOne({ nameKey: def.name, builtin: true });
      if (existing) {
        if (existing.permissions.join() !== def.permissions.join()) {
          await this.deps.repos.roles.update({ _id: existing._id }, { permissions: def.permissions, description: def.description });
        }
        continue;
      }
      const now = nowIso(this.deps);
      await this.deps.repos.roles.insert({
        _id: this.deps.ids.next(), name: def.name, nameKey: def.name, description: def.description,
        builtin: true, permissions: def.permissions, createdAt: now, updatedAt: now,
      });
    }
  }

  /** Any signed-in user may read roles: members need to know what their roles allow. Built-in roles come first. */
  async list(page: { limit: number; cursor?: string }) {
    const result = await paginate<RoleDoc, string>(
      page,
      async (after, limit) => {
        // The key orders built-in roles first: "0:<id>" before "1:<id>".
        const [group, id] = after === undefined ? ['0', ''] : after.split(':');
        const builtins = group === '0'
          ? await this.deps.repos.roles.find(id ? { builtin: true, _id: { $gt: id } } : { builtin: true }, { sort: { _id: 1 }, limit })
          : [];
        if (builtins.length >= limit) return builtins;
        const customAfter = group === '1' ? id : undefined;
        const customs = await this.deps.repos.roles.find(
          customAfter ? { builtin: false, _id: { $gt: customAfter } } : { builtin: false },
          { sort: { _id: 1 }, limit: limit - builtins.length },
        );
        return [...builtins, ...customs];
      },
      (r) => `${r.builtin ? 0 : 1}:${r._id}`,
      (key): key is string => typeof key === 'string' && /^[01]:/.test(key),
    );
    return { ...result, items: result.items.map(roleView) };
  }

  async get(roleId: string) {
    const role = await this.deps.repos.roles.findById(roleId);
    if (!role) throw notFound('role');
    return roleView(role);
  }

  async create(caller: Caller, input: { name: string; description?: string; permissions: string[] }, audit: AuditScope) {
    this.access.requireGlobalAdmin(caller);
    const now = nowIso(this.deps);
    const doc: RoleDoc = {
      _id: this.deps.ids.next(), name: input.name, nameKey: input.name.toLowerCase(), description: input.description ?? '',
      builtin: false, permissions: input.permissions, createdAt: now, updatedAt: now,
    };
    audit.target(doc._id).detail({ name: doc.name, permissions: doc.permissions });
    try {
      await this.deps.repos.roles.insert(doc);
    } catch (e) {
      if (isDuplicateKey(e)) throw duplicateRole();
      throw e;
    }
    return roleView(doc);
  }

  async update(caller: Caller, roleId: string, input: { name?: string; description?: string; permissions?: string[] }, audit: AuditScope) {
    this.access.requireGlobalAdmin(caller);
    audit.target(roleId).detail({ ...input });
    const role = await this.deps.repos.roles.findById(roleId);
    if (!role) throw notFound('role');
    if (role.builtin) throw new DomainError('builtin_role');
    const set: Partial<RoleDoc> = { updatedAt: nowIso(this.deps) };
    if (input.name !== undefined) Object.assign(set, { name: input.name, nameKey: input.name.toLowerCase() });
    if (input.description !== undefined) set.description = input.description;
    if (input.permissions !== undefined) set.permissions = input.permissions;
    try {
      await this.deps.repos.roles.update({ _id: roleId }, set);
    } catch (e) {
      if (isDuplicateKey(e)) throw duplicateRole();
      throw e;
    }
    if (input.permissions !== undefined && role.permissions.some((p) => !input.permissions!.includes(p))) {
      const holders = await this.deps.repos.memberships.find({ roleIds: roleId });
      this.accessEvents.publishAll(holders.map((m) => m.userId), 'role_changed');
    }
    return roleView({ ...role, ...set });
  }

  async delete(caller: Caller, roleId: string, audit: AuditScope): Promise<void> {
    this.access.requireGlobalAdmin(caller);
    audit.target(roleId);
    const role = await this.deps.repos.roles.findById(roleId);
    if (!role) throw notFound('role');
    if (role.builtin) throw new DomainError('builtin_role');
    audit.detail({ name: role.name });
    const inUse = await this.deps.repos.memberships.count({ roleIds: roleId });
    if (inUse > 0) throw conflict(`The role is assigned in ${inUse} team membership(s); remove it from them first.`);
    await this.deps.repos.roles.delete({ _id: roleId });
  }

  /** Every id must name an existing role. */
  async requireExisting(roleIds: string[]): Promise<void> {
    if (roleIds.length === 0) return;
    const found = await this.deps.repos.roles.find({ _id: { $in: roleIds } });
    const missing = roleIds.filter((id) => !found.some((r) => r._id === id));
    if (missing.length > 0) throw invalidRequest(`body.roleIds: no role ${missing[0]}.`);
  }
}
