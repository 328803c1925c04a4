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

export const teamView = (t: TeamDoc) => ({ id: t._id, name: t.name, ...(t.internal ? { internal: true as const } : {}) });

export const roleView = (r: RoleDoc) => ({
  id: r._id,
  name: r.name,
  description: r.description,
  builtin: r.builtin,
  permissions: r.permissions,
  createdAt: r.createdAt,
});
