import type { CreatedApiToken, Team, User } from './api-types.js';
import { createReadyUser } from './controller.js';
import type { World } from './fixture-world.js';
import { ApiClient, sessionCookieFrom } from './http.js';

/** The callers of the authorization matrix, in its column order. */
export const identityNames = ['anon', 'pwc', 'viewer', 'operator', 'tadmin', 'outsider', 'nodes', 'admin', 'token', 'scoped', 'tscoped'] as const;
export type IdentityName = (typeof identityNames)[number];

export interface Identity {
  name: IdentityName;
  client: ApiClient;
  /** The user behind it (none for anon). */
  userId?: string;
  /** The password it signs in with. */
  password?: string;
}

/**
 * - anon: no credentials; pwc: signed in, password change still required;
 * - viewer, operator, tadmin: the built-in team roles in the world's team;
 * - outsider: admin of another team (which has no servers), nothing in the world's team;
 * - nodes: the global permission nodes.manage and no team;
 * - admin: a global administrator (session cookie); token: the same administrator's API token.
 * - scoped: that administrator's token scoped to reading and powering servers in the world's team
 *   (no global power passes to it); tscoped: the team admin's token scoped to servers.read.
 */
export async function buildIdentities(w: World): Promise<Record<IdentityName, Identity>> {
  const member = async (username: string, teamId: string, role: string) => {
    const { client, userId } = await createReadyUser(w.t, w.admin, username);
    const set = await w.admin.put(`/teams/${teamId}/members/${userId}`, { roleIds: [w.builtinRoles.get(role)] });
    if (set.status !== 200) throw new Error(`membership of ${username}: ${set.status} ${set.text}`);
    return { client, userId, password: 'second-password-2' };
  };
  const otherTeam = await w.admin.post<Team>('/teams', { name: 'Elsewhere' });
  const pwcUser = await w.admin.post<User>('/users', { username: 'pwc', email: 'pwc@example.com', displayName: 'pwc', password: 'first-password-1' });
  const pwcLogin = await w.t.api.post('/auth/login', { username: 'pwc', password: 'first-password-1' });
  const nodes = await createReadyUser(w.t, w.admin, 'nodekeeper');
  const granted = await w.admin.patch(`/users/${nodes.userId}`, { globalPermissions: ['nodes.manage'] });
  if (granted.status !== 200) throw new Error(`nodes.manage: ${granted.status} ${granted.text}`);
  const token = await w.admin.post<CreatedApiToken>('/me/tokens', { name: 'matrix' });
  const scoped = await w.admin.post<CreatedApiToken>('/me/tokens', {
    name: 'matrix-scoped', permissions: ['servers.read', 'servers.start', 'servers.stop'], teamIds: [w.teamId],
  });
  if (scoped.status !== 201) throw new Error(`scoped token: ${scoped.status} ${scoped.text}`);
  const tadmin = await member('tam', w.teamId, 'admin');
  const tscoped = await tadmin.client.post<CreatedApiToken>('/me/tokens', { name: 'matrix-read', permissions: ['servers.read'] });
  if (tscoped.status !== 201) throw new Error(`team admin's scoped token: ${tscoped.status} ${tscoped.text}`);
  return {
    anon: { name: 'anon', client: w.t.api.anonymous() },
    pwc: { name: 'pwc', client: w.t.api.withCookie(sessionCookieFrom(pwcLogin)), userId: pwcUser.body.id, password: 'first-password-1' },
    viewer: { name: 'viewer', ...(await member('vic', w.teamId, 'viewer')) },
    operator: { name: 'operator', ...(await member('olly', w.teamId, 'operator')) },
    tadmin: { name: 'tadmin', ...tadmin },
    outsider: { name: 'outsider', ...(await member('oscar', otherTeam.body.id, 'admin')) },
    nodes: { name: 'nodes', client: nodes.client, userId: nodes.userId, password: 'second-password-2' },
    admin: { name: 'admin', client: w.admin, userId: w.adminId, password: 'correct-horse-battery' },
    token: { name: 'token', client: new ApiClient(w.t.baseUrl, { token: token.body.token }), userId: w.adminId, password: 'correct-horse-battery' },
    scoped: { name: 'scoped', client: new ApiClient(w.t.baseUrl, { token: scoped.body.token }), userId: w.adminId, password: 'correct-horse-battery' },
    tscoped: { name: 'tscoped', client: new ApiClient(w.t.baseUrl, { token: tscoped.body.token }), userId: tadmin.userId, password: tadmin.password },
  };
}
