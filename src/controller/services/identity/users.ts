import { isGlobalAdmin } from '../../domain/permissions.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, forbidden } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { hashPassword } from '../../security/passwords.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { UserDoc } from '../../store/records.js';
import { hidden, type Access } from './access.js';
import type { AccessEvents } from './access-events.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { sharedUserView, userView } from './views.js';

export interface NewUser {
  username: string;
  email: string;
  displayName: string;
  password: string;
  globalAdmin?: boolean;
  globalPermissions?: string[];
}

export const duplicateUserMessage = (field: string) =>
  field === 'emailKey' ? 'A user with that email already exists.' : 'A user with that username already exists.';

/** Builds a user record; shared by setup (first administrator) and user creation. */
export async function newUserDoc(deps: ServiceDeps, input: NewUser, passwordChangeRequired: boolean): Promise<UserDoc> {
  const now = nowIso(deps);
  return {
    _id: deps.ids.next(),
    username: input.username,
    usernameKey: input.username.toLowerCase(),
    email: input.email,
    emailKey: input.email.toLowerCase(),
    displayName: input.displayName,
    passwordHash: await hashPassword(input.password),
    globalAdmin: input.globalAdmin ?? false,
    globalPermissions: input.globalPermissions ?? [],
    passwordChangeRequired,
    createdAt: now,
    updatedAt: now,
  };
}

export class UserService {
  constructor(private readonly deps: ServiceDeps, private readonly access: Access, private readonly accessEvents: AccessEvents) {}

  /** Accounts made by an administrator must choose their own password at first sign-in. */
  async create(caller: Caller, input: NewUser, audit: AuditScope) {
    this.access.requireGlobalAdmin(caller);
    const doc = await newUserDoc(this.deps, input, true);
    audit.target(doc._id).detail({ username: doc.username, globalAdmin: doc.globalAdmin, globalPermissions: doc.globalPermissions });
    try {
      await this.deps.repos.users.insert(doc);
    } catch (e) {
      if (isDuplicateKey(e)) throw conflict(duplicateUserMessage(e.field));
      throw e;
    }
    return userView(doc);
  }

  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    this.access.requireGlobalAdmin(caller);
    const result = await paginate<UserDoc, string>(
      page,
      (after, limit) => this.deps.repos.users.find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit }),
      (u) => u._id,
    );
    return { ...result, items: result.items.map(userView) };
  }

  /** Administrators see everyone; others see only themselves. */
  async get(caller: Caller, userId: string) {
    if (!isGlobalAdmin(caller) && caller.user._id !== userId) {
      throw caller.user.globalAdmin ? forbidden('A scoped API token never carries global administration.') : hidden('user');
    }
    const cached = this.deps.repos.users.cachedById?.(userId);
    if (cached) return sharedUserView(cached);
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    return userView(user);
  }

  /** A user may change its own email and display name; the rest needs a global administrator. */
  async update(caller: Caller, userId: string, input: { email?: string; displayName?: string; globalAdmin?: boolean; globalPermissions?: string[] }, audit: AuditScope) {
    audit.target(userId).detail({ fields: Object.keys(input) });
    const self = caller.user._id === userId;
    this.access.requireUnscoped(caller);
    if (!isGlobalAdmin(caller)) {
      if (!self) throw hidden('user');
      if (input.globalAdmin !== undefined || input.globalPermissions !== undefined) throw forbidden('Only global administrators may change administration rights.');
    }
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    if (input.globalAdmin === false && user.globalAdmin) await this.keepOneAdmin(userId);
    const set: Partial<UserDoc> = { updatedAt: nowIso(this.deps) };
    if (input.email !== undefined) Object.assign(set, { email: input.email, emailKey: input.email.toLowerCase() });
    if (input.displayName !== undefined) set.displayName = input.displayName;
    if (input.globalAdmin !== undefined) set.globalAdmin = input.globalAdmin;
    if (input.globalPermissions !== undefined) set.globalPermissions = input.globalPermissions;
    try {
      await this.deps.repos.users.update({ _id: userId }, set);
    } catch (e) {
      if (isDuplicateKey(e)) throw conflict(duplicateUserMessage(e.field));
      throw e;
    }
    const lostGlobal = (user.globalAdmin && set.globalAdmin === false)
      || (set.globalPermissions !== undefined && user.globalPermissions.some((p) => !set.globalPermissions!.includes(p)));
    if (lostGlobal) this.accessEvents.publish({ userId, kind: 'user_rights_changed' });
    return userView({ ...user, ...set });
  }

  async delete(caller: Caller, userId: string, audit: AuditScope): Promise<void> {
    this.access.requireGlobalAdmin(caller);
    audit.target(userId);
    const user = await this.deps.repos.users.findById(userId);
    if (!user) throw hidden('user');
    if (user.globalAdmin) await this.keepOneAdmin(userId);
    audit.detail({ username: user.username });
    const { repos } = this.deps;
    await repos.users.delete({ _id: userId });
    await repos.sessions.delete({ userId });
    await repos.apiTokens.delete({ userId });
    await repos.sshKeys.delete({ userId });
    await repos.memberships.delete({ userId });
    await repos.passwordResets.delete({ userId });
    this.accessEvents.publish({ userId, kind: 'user_deleted' });
  }

  /** Refuses to remove the last global administrator: nobody could administer the Controller again. */
  private async keepOneAdmin(userId: string): Promise<void> {
    const others = await this.deps.repos.users.count({ globalAdmin: true, _id: { $ne: userId } });
    if (others === 0) throw conflict('This is the last global administrator.');
  }
}
