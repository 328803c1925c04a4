import type { Shared } from '../../store/collection.js';
import type { RoleDoc, TeamDoc, UserDoc } from '../../store/records.js';

/** Records as the API shows them: ids renamed, secrets and lookup keys left out. */
export const userView = (u: Shared<UserDoc>) => ({
  id: u._id,
  username: u.username,
  email: u.email,
  displayName: u.displayName,
  globalAdmin: u.globalAdmin,
  globalPermissions: [...u.globalPermissions],
  passwordChangeRequired: u.passwordChangeRequired,
  totpEnabled: u.totpSeal !== undefined,
  createdAt: u.createdAt,
});

export type UserView = ReturnType<typeof userView>;

const viewOfShared = new WeakMap<Shared<UserDoc>, UserView>();

/**
 * The view of a user the store lends from its memory, made once per lent document: a write
 * replaces that document rather than change it, so the view stays true while the document lives.
 * `GET /me` reads it on every request; handing out the same object lets its JSON be kept too
 * (http/page-json.ts), so no caller may change it.
 */
export function sharedUserView(u: Shared<UserDoc>): UserView {
  let view = viewOfShared.get(u);
  if (!view) viewOfShared.set(u, (view = userView(u)));
  return view;
}

export const teamView = (t: TeamDoc) => ({ id: t._id, name: t.name, ...(t.internal ? { internal: true as const } : {}) });

export const roleView = (r: RoleDoc) => ({
  id: r._id,
  name: r.name,
  description: r.description,
  builtin: r.builtin,
  permissions: r.permissions,
  createdAt: r.createdAt,
});
