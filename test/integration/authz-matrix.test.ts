import { expect } from 'chai';
import yazl from 'yazl';
import type { Backup, BackupDestination, BackupSchedule, CreatedApiToken, EnrollmentIssued, PluginInstallation, PluginInstallationPage, Role, Schedule, ServerDetail, SshKey, Team, User } from '../support/api-types.js';
import { buildIdentities, identityNames, type Identity, type IdentityName } from '../support/authz-identities.js';
import { buildWorld, simcraft, smallResources, worldWebhookUrl, type World } from '../support/fixture-world.js';
import { waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { rawRequest } from '../support/raw-request.js';
import { waitFor } from '../support/wait-for.js';
import { ed25519KeyPair } from '../support/sftp-client.js';

/**
 * Who may do what, for every operation of the API, from one table. Columns are the callers of
 * test/support/authz-identities.ts; a cell is what that caller must get:
 *   2 = any 2xx · 401 = unauthenticated · cred = 401 invalid_credentials · pcr = 403 password_change_required · 403 = forbidden
 *   ro = 403 read_only (the network's forwarding-secret file, refused to everyone)
 *   404 = not_found (may not see it) · 400, 409 = refused for what the request says, after the
 *   caller was let through · a|b = either.
 * Derived from the spec's Authentication section and contract.md: team permissions in the world's
 * team (viewer reads; operator also powers, console, files, plugins, backups.create; team admin
 * holds everything there), global nodes.manage for Nodes, global administrators for users, teams,
 * roles, audit, network, destinations and the catalog sync. Someone outside the team gets 404 for
 * its servers and everything under them; an operation only global administrators (or nodes.manage
 * holders) may do is 403 for everyone else, before anything is looked up, so it reveals nothing.
 */
interface Req {
  path?: string;
  body?: unknown;
  raw?: { data: Buffer; type: string };
}
interface Row {
  op: string;
  cells: string[];
  req?: (c: Ctx) => Promise<Req> | Req;
  /** Runs after each call, to put back what it changed. */
  then?: (c: Ctx) => Promise<unknown>;
}
interface Ctx {
  w: World;
  who: Identity;
  f: Fixtures;
  unique: (prefix: string) => string;
}
interface Fixtures {
  spareId: string;
  spareBackupId: string;
  jar: Buffer;
}

const row = (op: string, cells: string, req?: Row['req'], then?: Row['then']): Row => ({ op, cells: cells.trim().split(/\s+/), req, then });

const admin = (c: Ctx): ApiClient => c.w.admin;
const ok = async <T>(res: Promise<{ status: number; text: string; body: T }>, what: string): Promise<T> => {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
};
const throwawayServer = async (c: Ctx) => {
  const s = await ok(admin(c).post<ServerDetail>('/servers', { name: c.unique('gone'), teamId: c.w.teamId, software: simcraft, resources: smallResources, nodeId: c.w.nodeId }), 'server');
  await waitForServer(admin(c), s.id, (d) => d.phase === 'READY', 'the throwaway server READY');
  return s.id;
};
const throwawayNode = async (c: Ctx) => (await ok(admin(c).post<EnrollmentIssued>('/nodes', { name: c.unique('spare-node') }), 'node')).node.id;
const throwawayBackup = async (c: Ctx) => {
  const b = await ok(admin(c).post<Backup>(`/servers/${c.w.serverId}/backups`, {}), 'backup');
  await waitFor(async () => (await admin(c).get<Backup>(`/backups/${b.id}`)).body.state === 'SUCCEEDED', { what: 'the throwaway backup' });
  return b.id;
};
const throwawaySchedule = async (c: Ctx) =>
  (await ok(admin(c).post<Schedule>(`/servers/${c.w.serverId}/schedules`, { name: c.unique('schedule'), cron: '0 4 * * *', tasks: [{ action: 'command', command: 'say matrix' }] }), 'schedule')).id;
const installed = async (c: Ctx, pluginId: string) => {
  const res = await admin(c).post<PluginInstallation>(`/servers/${c.w.serverId}/plugins`, { pluginId });
  if (res.status === 201) return res.body.id;
  const list = await admin(c).get<PluginInstallationPage>(`/servers/${c.w.serverId}/plugins?limit=200`);
  return list.body.items.find((i) => i.pluginId === pluginId)!.id;
};
const teamWebhook = (c: Ctx) => ({ url: worldWebhookUrl, events: ['server.crashed'], teamId: c.w.teamId });
const admitTeam = (c: Ctx, teamIds: string[]) => ok(admin(c).patch('/network', { teamIds }), 'admit teams');
const leaveNetwork = (c: Ctx) => ok(admin(c).patch(`/servers/${c.f.spareId}`, { inNetwork: false }), 'leave the network');
const begunUpload = async (c: Ctx) => (await ok(admin(c).post<{ id: string }>(`/servers/${c.w.serverId}/files/uploads`, { path: c.unique('upload'), size: 5 }), 'upload')).id;
const put = (c: Ctx, path: string) => admin(c).request('PUT', `/servers/${c.w.serverId}/files/content?path=${path}`, { rawBody: Buffer.from('hello'), contentType: 'application/octet-stream' });

//                                                                     anon  pwc   view  oper  tadm  out   node  admin token scop  tscop
const table: Row[] = [
  row('GET /setup',                                                   '2     2     2     2     2     2     2     2     2     2     2'),
  row('POST /setup',                                                  '409   409   409   409   409   409   409   409   409   409   409', () => ({
    body: { setupCode: 'not-the-code', username: 'late', email: 'late@example.com', displayName: 'Late', password: 'late-password-1', network: { name: 'N', address: 'example.com', port: 30000 } },
  })),
  row('POST /auth/login',                                             'cred  cred  cred  cred  cred  cred  cred  cred  cred  cred  cred', (c) => ({ body: { username: c.unique('nobody'), password: 'wrong-password-1' } })),
  row('GET /auth/methods',                                            '2     2     2     2     2     2     2     2     2     2     2'),
  row('GET /auth/oidc',                                               '401   pcr   403   403   403   403   403   404   404   403   403'),
  // Discovery at a closed port fails: whoever may set it is let through and refused for the issuer.
  row('PUT /auth/oidc',                                               '401   pcr   403   403   403   403   403   400   400   403   403', () => ({
    body: { issuer: 'http://127.0.0.1:1', clientId: 'cairn', clientSecret: 'matrix-secret', displayName: 'Matrix SSO' },
  })),
  row('DELETE /auth/oidc',                                            '401   pcr   403   403   403   403   403   2     2     403   403'),
  // Single sign-on is not set up in this world: nothing to sign in with, and no sign-in to come back from.
  row('GET /auth/oidc/login',                                         '404   404   404   404   404   404   404   404   404   404   404'),
  row('GET /auth/oidc/callback',                                      '302   302   302   302   302   302   302   302   302   302   302', () => ({ path: '/auth/oidc/callback?code=c&state=s' })),
  row('POST /auth/password-reset',                                    '400   400   400   400   400   400   400   400   400   400|429 400|429', () => ({ body: { token: 'not-a-reset-token', newPassword: 'new-password-123' } })),
  row('POST /me/password',                                            '401   400   400   400   400   400   400   400   400   403   403', () => ({ body: { currentPassword: 'not-my-password', newPassword: 'new-password-123' } })),
  row('GET /me',                                                      '401   2     2     2     2     2     2     2     2     2     2'),
  row('POST /me/tokens',                                              '401   pcr   2     2     2     2     2     2     2     403   403', (c) => ({ body: { name: c.unique('t') } })),
  row('GET /me/tokens',                                               '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('DELETE /me/tokens/{tokenId}',                                  '401   pcr   404   404   404   404   404   2     2     403   403', async (c) => ({
    path: `/me/tokens/${(await ok(admin(c).post<CreatedApiToken>('/me/tokens', { name: c.unique('t') }), 'token')).id}`,
  })),
  row('POST /me/ssh-keys',                                            '401   pcr   2     2     2     2     2     2     2     403   403', (c) => ({ body: { name: c.unique('k'), publicKey: ed25519KeyPair().public } })),
  row('GET /me/ssh-keys',                                             '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('DELETE /me/ssh-keys/{keyId}',                                  '401   pcr   404   404   404   404   404   2     2     403   403', async (c) => ({
    path: `/me/ssh-keys/${(await ok(admin(c).post<SshKey>('/me/ssh-keys', { name: c.unique('k'), publicKey: ed25519KeyPair().public }), 'ssh key')).id}`,
  })),
  row('POST /me/totp',                                                '401   pcr   2     2     2     2     2     2     2     403   403'),
  row('POST /me/totp/confirm',                                        '401   pcr   400   400   400   400   400   400   400   403   403', () => ({ body: { code: '000000' } })),
  row('DELETE /me/totp',                                              '401   pcr   409   409   409   409   409   409   409   403   403', () => ({ body: { code: '000000' } })),
  row('POST /users',                                                  '401   pcr   403   403   403   403   403   2     2     403   403', (c) => {
    const name = c.unique('u');
    return { body: { username: name, email: `${name}@example.com`, displayName: name, password: 'first-password-1' } };
  }),
  row('GET /users',                                                   '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('GET /users/{userId}',                                          '401   pcr   404   404   404   404   404   2     2     403   404'),
  row('GET /users/{userId} (self)',                                   '401   pcr   2     2     2     2     2     2     2     2     2', (c) => ({ path: `/users/${c.who.userId ?? c.w.adminId}` })),
  row('PATCH /users/{userId}',                                        '401   pcr   404   404   404   404   404   2     2     403   403', () => ({ body: { displayName: 'World user' } })),
  row('PATCH /users/{userId} (own name)',                             '401   pcr   2     2     2     2     2     2     2     403   403', (c) => ({ path: `/users/${c.who.userId ?? c.w.adminId}`, body: { displayName: `${c.who.name} renamed` } })),
  row('PATCH /users/{userId} (make self admin)',                      '401   pcr   403   403   403   403   403   2     2     403   403', (c) => ({ path: `/users/${c.who.userId ?? c.w.adminId}`, body: { globalAdmin: true } })),
  row('PATCH /users/{userId} (grant self nodes.manage)',              '401   pcr   403   403   403   403   403   2     2     403   403', (c) => ({ path: `/users/${c.who.userId ?? c.w.adminId}`, body: { globalPermissions: ['nodes.manage'] } })),
  row('DELETE /users/{userId}',                                       '401   pcr   403   403   403   403   403   2     2     403   403', async (c) => {
    const name = c.unique('gone');
    return { path: `/users/${(await ok(admin(c).post<User>('/users', { username: name, email: `${name}@example.com`, displayName: name, password: 'first-password-1' }), 'user')).id}` };
  }),
  row('POST /users/{userId}/password-reset',                          '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('DELETE /users/{userId}/totp',                                  '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('POST /users/{userId}/unlock',                                  '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('POST /teams',                                                  '401   pcr   403   403   403   403   403   2     2     403   403', (c) => ({ body: { name: c.unique('team') } })),
  row('GET /teams',                                                   '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /teams/{teamId}',                                          '401   pcr   2     2     2     404   404   2     2     2     2'),
  row('PATCH /teams/{teamId}',                                        '401   pcr   403   403   403   404   404   2     2     403   403', (c) => ({ body: { name: c.unique('World') } })),
  row('DELETE /teams/{teamId}',                                       '401   pcr   403   403   403   404   404   409   409   403   403'),
  row('PUT /teams/{teamId}/members/{userId}',                         '401   pcr   403   403   403   404   404   2     2     403   403', (c) => ({ body: { roleIds: [c.w.builtinRoles.get('viewer')] } })),
  row('GET /teams/{teamId}/members',                                  '401   pcr   2     2     2     404   404   2     2     2     2'),
  row('DELETE /teams/{teamId}/members/{userId}',                      '401   pcr   403   403   403   404   404   2     2     403   403', async (c) => {
    await ok(admin(c).put(`/teams/${c.w.teamId}/members/${c.w.userId}`, { roleIds: [c.w.builtinRoles.get('viewer')] }), 'membership');
    return {};
  }),
  row('GET /roles',                                                   '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('POST /roles',                                                  '401   pcr   403   403   403   403   403   2     2     403   403', (c) => ({ body: { name: c.unique('role'), permissions: ['servers.read'] } })),
  row('GET /roles/{roleId}',                                          '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('PATCH /roles/{roleId}',                                        '401   pcr   403   403   403   403   403   2     2     403   403', () => ({ body: { description: 'changed' } })),
  row('DELETE /roles/{roleId}',                                       '401   pcr   403   403   403   403   403   2     2     403   403', async (c) => ({
    path: `/roles/${(await ok(admin(c).post<Role>('/roles', { name: c.unique('role'), permissions: [] }), 'role')).id}`,
  })),
  row('GET /audit-events',                                            '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('GET /network',                                                 '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('PATCH /network',                                               '401   pcr   403   403   403   403   403   2     2     403   403', () => ({ body: { description: 'changed' } })),
  row('PATCH /network (admit teams)',                                 '401   pcr   403   403   403   403   403   2     2     403   403', (c) => ({ body: { teamIds: [c.w.teamId] } }), (c) => admitTeam(c, [])),
  row('POST /network/proxy',                                          '401   pcr   403   403   403   403   403   2|409 2|409 403   403', (c) => ({
    body: { software: { template: 'simproxy', version: '3.4.0' }, resources: smallResources, nodeId: c.w.nodeId },
  })),
  row('POST /network/forwarding-secret',                              '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('GET /network/routes',                                          '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('POST /nodes',                                                  '401   pcr   403   403   403   403   2     2     2     403   403', (c) => ({ body: { name: c.unique('node') } })),
  row('GET /nodes',                                                   '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /nodes/{nodeId}',                                          '401   pcr   2     2     2     404   2     2     2     403   403'),
  row('PATCH /nodes/{nodeId}',                                        '401   pcr   403   403   403   404   2     2     2     403   403', () => ({ body: { address: '' } })),
  row('DELETE /nodes/{nodeId}',                                       '401   pcr   403   403   403   404   409   409   409   403   403'),
  row('POST /nodes/{nodeId}/enable',                                  '401   pcr   403   403   403   404   2     2     2     403   403'),
  row('POST /nodes/{nodeId}/disable',                                 '401   pcr   403   403   403   404   2     2     2     403   403', undefined, (c) => admin(c).post(`/nodes/${c.w.nodeId}/enable`)),
  row('POST /nodes/{nodeId}/revoke',                                  '401   pcr   404   404   404   404   2     2     2     403   404', async (c) => ({ path: `/nodes/${await throwawayNode(c)}/revoke` })),
  row('POST /nodes/{nodeId}/enrollment-token',                        '401   pcr   404   404   404   404   2     2     2     403   404', async (c) => ({ path: `/nodes/${await throwawayNode(c)}/enrollment-token` })),
  row('POST /nodes/{nodeId}/drain',                                   '401   pcr   404   404   404   404   2     2     2     403   404', async (c) => ({ path: `/nodes/${await throwawayNode(c)}/drain` })),
  row('GET /agent-link',                                              '401   pcr   403   403   403   403   2     2     2     403   403'),
  row('GET /cluster',                                                 '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('POST /servers',                                                '401   pcr   403   403   2     404   404   2     2     403   403', (c) => ({
    body: { name: c.unique('new'), teamId: c.w.teamId, software: simcraft, resources: smallResources, nodeId: c.w.nodeId },
  })),
  // Joining the network trusts the team with the secret every member shares: a global administrator admits the team first.
  row('POST /servers (inNetwork, team not admitted)',                 '401   pcr   403   403   403   404   404   2     2     403   403', (c) => ({
    body: { name: c.unique('member'), teamId: c.w.teamId, software: simcraft, resources: smallResources, nodeId: c.w.nodeId, inNetwork: true },
  })),
  row('POST /servers (inNetwork, team admitted)',                     '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => {
    await admitTeam(c, [c.w.teamId]);
    return { body: { name: c.unique('member'), teamId: c.w.teamId, software: simcraft, resources: smallResources, nodeId: c.w.nodeId, inNetwork: true } };
  }, (c) => admitTeam(c, [])),
  row('PATCH /servers/{serverId} (inNetwork, team not admitted)',     '401   pcr   403   403   403   404   404   2     2     403   403', (c) => ({
    path: `/servers/${c.f.spareId}`, body: { inNetwork: true },
  }), leaveNetwork),
  row('PATCH /servers/{serverId} (inNetwork, team admitted)',         '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => {
    await admitTeam(c, [c.w.teamId]);
    return { path: `/servers/${c.f.spareId}`, body: { inNetwork: true } };
  }, async (c) => {
    await admitTeam(c, []);
    await leaveNetwork(c);
  }),
  row('GET /servers',                                                 '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /servers/watch',                                           '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /servers/{serverId}',                                      '401   pcr   2     2     2     404   404   2     2     2     2'),
  row('PATCH /servers/{serverId}',                                    '401   pcr   403   403   2     404   404   2     2     403   403', (c) => ({ path: `/servers/${c.f.spareId}`, body: { resources: smallResources } })),
  row('DELETE /servers/{serverId}',                                   '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => ({ path: `/servers/${await throwawayServer(c)}` })),
  row('POST /servers/{serverId}/start',                               '401   pcr   403   2     2     404   404   2     2     2     403', (c) => ({ path: `/servers/${c.f.spareId}/start` })),
  row('POST /servers/{serverId}/stop',                                '401   pcr   403   2     2     404   404   2     2     2     403', (c) => ({ path: `/servers/${c.f.spareId}/stop` })),
  row('POST /servers/{serverId}/restart',                             '401   pcr   403   2     2     404   404   2     2     2     403', (c) => ({ path: `/servers/${c.f.spareId}/restart` })),
  // The spare server is READY, so whoever may update it is let through and refused for its phase.
  row('POST /servers/{serverId}/reinstall',                           '401   pcr   403   403   409   404   404   409   409   403   403', (c) => ({ path: `/servers/${c.f.spareId}/reinstall` })),
  row('POST /servers/{serverId}/conditions/{condition}/acknowledge',  '401   pcr   403   2     2     404   404   2     2     2     403', async (c) => {
    c.w.agent.send({ serverId: c.f.spareId, conditions: [{ id: 'MATRIX', reason: 'MATRIX', message: 'A condition to acknowledge.', since: new Date().toISOString() }] });
    await waitForServer(admin(c), c.f.spareId, (d) => d.conditions.some((x) => x.reason === 'MATRIX'), 'the condition reported');
    return { path: `/servers/${c.f.spareId}/conditions/MATRIX/acknowledge` };
  }),
  // The spare's own version: allowed callers get the refusal that follows the permission check (no update runs).
  row('POST /servers/{serverId}/software',                            '401   pcr   403   403   400   404   404   400   400   403   403', (c) => ({ path: `/servers/${c.f.spareId}/software`, body: { version: simcraft.version } })),
  row('POST /servers/{serverId}/migrate',                             '401   pcr   403   403   403   404   404   400   400   403   403', (c) => ({ path: `/servers/${c.f.spareId}/migrate`, body: { nodeId: c.w.nodeId } })),
  row('POST /servers/{serverId}/console/commands',                    '401   pcr   403   2     2     404   404   2     2     403   403', () => ({ body: { command: 'say hello' } })),
  row('GET /servers/{serverId}/console',                              '401   pcr   403   2     2     404   404   2     2     403   403'),
  row('GET /servers/{serverId}/files',                                '401   pcr   2     2     2     404   404   2     2     403   403', (c) => ({ path: `/servers/${c.w.serverId}/files?path=.` })),
  row('GET /servers/{serverId}/files/content (forwarding secret)',    '401   pcr   ro    ro    ro    404   404   ro    ro    403   403', (c) => ({ path: `/servers/${c.w.serverId}/files/content?path=config/paper-global.yml` })),
  row('PUT /servers/{serverId}/files/content (forwarding secret)',    '401   pcr   403   ro    ro    404   404   ro    ro    403   403', (c) => ({
    path: `/servers/${c.w.serverId}/files/content?path=./config//paper-global.yml`, raw: { data: Buffer.from('bytes'), type: 'application/octet-stream' },
  })),
  row('DELETE /servers/{serverId}/files',                             '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => {
    const name = c.unique('doomed');
    await ok(put(c, name), 'file');
    return { path: `/servers/${c.w.serverId}/files?path=${name}` };
  }),
  row('GET /servers/{serverId}/files/content',                        '401   pcr   2     2     2     404   404   2     2     403   403', async (c) => {
    await ok(put(c, 'readme.txt'), 'file');
    return { path: `/servers/${c.w.serverId}/files/content?path=readme.txt` };
  }),
  row('PUT /servers/{serverId}/files/content',                        '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({
    path: `/servers/${c.w.serverId}/files/content?path=put.txt`, raw: { data: Buffer.from('bytes'), type: 'application/octet-stream' },
  })),
  row('POST /servers/{serverId}/files/move',                          '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => {
    const name = c.unique('movable');
    await ok(put(c, name), 'file');
    return { body: { from: name, to: c.unique('moved') } };
  }),
  row('POST /servers/{serverId}/files/move (forwarding secret)',      '401   pcr   403   ro    ro    404   404   ro    ro    403   403', (c) => ({ body: { from: 'config', to: c.unique('cfg') } })),
  // A job starts (202) whether or not its archive exists: that is found out by the job.
  row('POST /servers/{serverId}/files/extract',                       '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({ body: { path: `${c.unique('a')}.zip` } })),
  row('POST /servers/{serverId}/files/compress',                      '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({ body: { paths: ['missing.txt'], into: `${c.unique('c')}.zip` } })),
  row('GET /servers/{serverId}/files/jobs/{jobId}',                   '401   pcr   2     2     2     404   404   2     2     403   403', async (c) => ({
    path: `/servers/${c.w.serverId}/files/jobs/${(await ok(admin(c).post<{ id: string }>(`/servers/${c.w.serverId}/files/extract`, { path: `${c.unique('j')}.zip` }), 'job')).id}`,
  })),
  row('GET /servers/{serverId}/files/archive',                        '401   pcr   2     2     2     404   404   2     2     403   403', (c) => ({ path: `/servers/${c.w.serverId}/files/archive?path=.` })),
  row('POST /servers/{serverId}/files/uploads',                       '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({ body: { path: c.unique('big'), size: 5 } })),
  row('PUT /servers/{serverId}/files/uploads/{uploadId}',             '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => ({
    path: `/servers/${c.w.serverId}/files/uploads/${await begunUpload(c)}?offset=0`, raw: { data: Buffer.from('bytes'), type: 'application/octet-stream' },
  })),
  row('GET /servers/{serverId}/files/uploads/{uploadId}',             '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => ({ path: `/servers/${c.w.serverId}/files/uploads/${await begunUpload(c)}` })),
  row('DELETE /servers/{serverId}/files/uploads/{uploadId}',          '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => ({ path: `/servers/${c.w.serverId}/files/uploads/${await begunUpload(c)}` })),
  row('POST /servers/{serverId}/files/directories',                   '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({ path: `/servers/${c.w.serverId}/files/directories?path=${c.unique('dir')}` })),
  row('GET /servers/{serverId}/usage',                                '401   pcr   2     2     2     404   404   2     2     2     2', (c) => ({ path: `/servers/${c.w.serverId}/usage?window=10m` })),
  row('GET /servers/{serverId}/properties',                           '401   pcr   2     2     2     404   404   2     2     2     2'),
  row('PATCH /servers/{serverId}/properties',                         '401   pcr   403   403   2     404   404   2     2     403   403', () => ({ body: { motd: 'hello' } })),
  row('GET /templates',                                               '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /templates/{templateId}/versions',                         '401   pcr   2     2     2     2     2     2     2     2     2', () => ({ path: '/templates/simcraft/versions' })),
  // Any signed-in user reaches Modrinth's search; the test Controller's Modrinth is a closed port (502 upstream_unavailable).
  row('GET /templates/modrinth/packs',                                '401   pcr   502   502   502   502   502   502   502   502   502'),
  row('POST /software/sync',                                          '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('GET /servers/{serverId}/plugins',                              '401   pcr   2     2     2     404   404   2     2     403   403'),
  row('POST /servers/{serverId}/plugins',                             '401   pcr   403   2|409 2|409 404   404   2|409 2|409 403   403', () => ({ body: { pluginId: 'sample:luckperms' } })),
  row('POST /servers/{serverId}/plugins/upload',                      '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({
    path: `/servers/${c.w.serverId}/plugins/upload?fileName=matrix.jar`, raw: { data: c.f.jar, type: 'application/octet-stream' },
  })),
  row('POST /servers/{serverId}/plugins/{installationId}/update',     '401   pcr   403   2     2     404   404   2     2     403   403', () => ({ body: {} })),
  row('DELETE /servers/{serverId}/plugins/{installationId}',          '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => ({
    path: `/servers/${c.w.serverId}/plugins/${await installed(c, 'sample:worldedit')}`,
  })),
  row('GET /catalog/plugins',                                         '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /catalog/plugins/{pluginId}',                              '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('POST /catalog/sync',                                           '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('GET /backup-destinations',                                     '401   pcr   403   403   403   403   403   2     2     403   403'),
  row('POST /backup-destinations',                                    '401   pcr   403   403   403   403   403   2     2     403   403', (c) => ({ body: { name: c.unique('dest'), kind: 'CONTROLLER' } })),
  row('PATCH /backup-destinations/{destinationId}',                   '401   pcr   403   403   403   403   403   400   400   403   403', () => ({ body: { secretAccessKey: 'a-new-secret' } })),
  row('DELETE /backup-destinations/{destinationId}',                  '401   pcr   403   403   403   403   403   2     2     403   403', async (c) => ({
    path: `/backup-destinations/${(await ok(admin(c).post<BackupDestination>('/backup-destinations', { name: c.unique('dest'), kind: 'CONTROLLER' }), 'destination')).id}`,
  })),
  row('POST /servers/{serverId}/backups',                             '401   pcr   403   2     2     404   404   2     2     403   403', () => ({ body: {} })),
  row('GET /servers/{serverId}/backups',                              '401   pcr   2     2     2     404   404   2     2     403   403'),
  row('GET /backups',                                                 '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /backups/{backupId}',                                      '401   pcr   2     2     2     404   404   2     2     403   403'),
  row('DELETE /backups/{backupId}',                                   '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => ({ path: `/backups/${await throwawayBackup(c)}` })),
  // A schedule is read with servers.read; kept with servers.update and its tasks' permissions (here servers.command).
  row('POST /servers/{serverId}/schedules',                           '401   pcr   403   403   2     404   404   2     2     403   403', (c) => ({
    body: { name: c.unique('schedule'), cron: '0 4 * * *', tasks: [{ action: 'command', command: 'say matrix' }] },
  })),
  row('GET /servers/{serverId}/schedules',                            '401   pcr   2     2     2     404   404   2     2     2     2'),
  row('GET /schedules/{scheduleId}',                                  '401   pcr   2     2     2     404   404   2     2     2     2', async (c) => ({ path: `/schedules/${await throwawaySchedule(c)}` })),
  row('PATCH /schedules/{scheduleId}',                                '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => ({ path: `/schedules/${await throwawaySchedule(c)}`, body: { enabled: false } })),
  row('DELETE /schedules/{scheduleId}',                               '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => ({ path: `/schedules/${await throwawaySchedule(c)}` })),
  row('POST /schedules/{scheduleId}/run',                             '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => ({ path: `/schedules/${await throwawaySchedule(c)}/run` })),
  row('GET /schedules/{scheduleId}/runs',                             '401   pcr   2     2     2     404   404   2     2     2     2', async (c) => ({ path: `/schedules/${await throwawaySchedule(c)}/runs` })),
  row('POST /servers/{serverId}/backup-schedules',                    '401   pcr   403   2     2     404   404   2     2     403   403', (c) => ({
    body: { cron: '0 5 * * *', destinationId: c.w.controllerDestinationId, retain: 2 },
  })),
  row('GET /servers/{serverId}/backup-schedules',                     '401   pcr   2     2     2     404   404   2     2     403   403'),
  row('GET /backup-schedules',                                        '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('GET /backup-schedules/{scheduleId}',                           '401   pcr   2     2     2     404   404   2     2     403   403'),
  row('DELETE /backup-schedules/{scheduleId}',                        '401   pcr   403   2     2     404   404   2     2     403   403', async (c) => ({
    path: `/backup-schedules/${(await ok(admin(c).post<BackupSchedule>(`/servers/${c.w.serverId}/backup-schedules`, { cron: '0 6 * * *', destinationId: c.w.controllerDestinationId, retain: 1 }), 'schedule')).id}`,
  })),
  row('GET /webhooks',                                                '401   pcr   2     2     2     2     2     2     2     2     2'),
  row('POST /webhooks',                                               '401   pcr   403   403   2     404   404   2     2     403   403', (c) => ({ body: { ...teamWebhook(c), name: c.unique('hook') } })),
  row('GET /webhooks/{webhookId}',                                    '401   pcr   403   403   2     404   404   2     2     403   403'),
  row('PATCH /webhooks/{webhookId}',                                  '401   pcr   403   403   2     404   404   2     2     403   403', () => ({ body: { events: ['server.crashed', 'server.stopped'] } })),
  row('POST /webhooks/{webhookId}/test',                              '401   pcr   403   403   2     404   404   2     2     403   403'),
  row('GET /webhooks/{webhookId}/deliveries',                         '401   pcr   403   403   2     404   404   2     2     403   403'),
  row('DELETE /webhooks/{webhookId}',                                 '401   pcr   403   403   2     404   404   2     2     403   403', async (c) => ({
    path: `/webhooks/${(await ok(admin(c).post<{ id: string }>('/webhooks', { ...teamWebhook(c), name: c.unique('hook') }), 'webhook')).id}`,
  })),
  // Last: a restore keeps the spare server busy, and a logout ends the caller's session or token.
  row('POST /backups/{backupId}/restore',                             '401   pcr   403   403   2|409 404   404   2|409 2|409 403   403', (c) => ({ path: `/backups/${c.f.spareBackupId}/restore`, body: {} })),
  row('POST /auth/logout',                                            '401   2     2     2     2     2     2     2     2     2     2'),
];

async function jarOf(name: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(`name: ${name}\nversion: 1.0\nmain: a.B\n`), 'plugin.yml');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function matches(cell: string, status: number, code: string | undefined): boolean {
  return cell.split('|').some((want) => {
    switch (want) {
      case '2': return status >= 200 && status < 300;
      case '401': return status === 401 && code === 'unauthenticated';
      case 'cred': return status === 401 && code === 'invalid_credentials';
      case 'pcr': return status === 403 && code === 'password_change_required';
      case '403': return status === 403 && code === 'forbidden';
      case 'ro': return status === 403 && code === 'read_only';
      case '404': return status === 404 && code === 'not_found';
      default: return status === Number(want);
    }
  });
}

describe('authorization matrix: every operation × every kind of caller', function () {
  this.timeout(180_000);
  let w: World;
  let who: Record<IdentityName, Identity>;
  let f: Fixtures;
  let ops: string[];

  before(async () => {
    w = await buildWorld();
    who = await buildIdentities(w);
    const spare = await ok(w.admin.post<ServerDetail>('/servers', { name: 'spare', teamId: w.teamId, software: simcraft, resources: smallResources, nodeId: w.nodeId }), 'spare');
    await waitForServer(w.admin, spare.id, (s) => s.phase === 'READY', 'the spare server READY');
    const backup = await ok(w.admin.post<Backup>(`/servers/${spare.id}/backups`, {}), 'spare backup');
    await waitFor(async () => (await w.admin.get<Backup>(`/backups/${backup.id}`)).body.state === 'SUCCEEDED', { what: 'the spare backup' });
    f = { spareId: spare.id, spareBackupId: backup.id, jar: await jarOf('MatrixPlugin') };
    const doc = await w.admin.get<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json');
    ops = Object.entries(doc.body.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/^\/api\/v1/, '')}`));
    await ok(w.admin.post<Team>('/teams', { name: 'Unused' }), 'team');
  });
  after(async () => w.dispose());

  it('has one row for every operation of the OpenAPI document, and a column for every caller in each', () => {
    const rowOps = new Set(table.map((r) => r.op.replace(/ \(.*\)$/, '')));
    expect(ops.filter((op) => !rowOps.has(op)), 'operations without a row').to.deep.equal([]);
    expect([...rowOps].filter((op) => !ops.includes(op)), 'rows of no operation').to.deep.equal([]);
    for (const r of table) expect(r.cells, r.op).to.have.length(identityNames.length);
  });

  it('answers each caller as the table says', async () => {
    let n = 0;
    const unique = (prefix: string) => `${prefix}-${++n}`;
    const ids: Record<string, string> = {
      serverId: w.serverId, teamId: w.teamId, userId: w.userId, roleId: w.roleId, nodeId: w.nodeId, tokenId: w.spareTokenId,
      destinationId: w.destinationId, backupId: w.backupId, scheduleId: w.scheduleId, installationId: w.installationId, pluginId: encodeURIComponent(w.pluginId), webhookId: w.webhookId,
    };
    const mismatches: string[] = [];
    const grid: string[] = [];
    for (const r of table) {
      const got: string[] = [];
      for (const [i, name] of identityNames.entries()) {
        const c: Ctx = { w, who: who[name], f, unique };
        const req = (await r.req?.(c)) ?? {};
        const [method, template] = r.op.split(' ');
        const path = req.path ?? template.replace(/\{(\w+)\}/g, (_, key: string) => ids[key]);
        const { auth } = who[name].client;
        const headers: Record<string, string> = {};
        if (auth.cookie) headers.cookie = auth.cookie;
        if (auth.token) headers.authorization = `Bearer ${auth.token}`;
        let body: string | Buffer | undefined;
        if (req.raw) [body, headers['content-type']] = [req.raw.data, req.raw.type];
        else if (req.body !== undefined) [body, headers['content-type']] = [JSON.stringify(req.body), 'application/json'];
        const answer = await rawRequest(`${w.t.baseUrl}/api/v1${path}`, { method, headers, body, timeoutMs: 15_000 });
        const code = answer.contentType.startsWith('application/problem+json') ? (JSON.parse(answer.text) as { code: string }).code : undefined;
        got.push(code ? `${answer.status}:${code}` : String(answer.status));
        if (!matches(r.cells[i], answer.status, code)) mismatches.push(`${r.op} as ${name}: expected ${r.cells[i]}, got ${answer.status} ${code ?? ''} ${answer.text.slice(0, 160)}`);
        await r.then?.(c);
      }
      grid.push(`${r.op.padEnd(62)} ${got.join(' ')}`);
    }
    if (mismatches.length > 0) console.log(`${mismatches.join("\n")}\n\n${grid.join("\n")}`);
    expect(mismatches, `${mismatches.join('\n')}\n\n${grid.join('\n')}`).to.deep.equal([]);
  });
});
