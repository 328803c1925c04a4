import { expect } from 'chai';
import type { CreatedApiToken, PasswordResetIssued, Role, RolePage, ServerDetail, Team, User } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeOperations } from '../support/fake-operations.js';
import { GiB, waitForServer } from '../support/fleet.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { openSse, type SseEvent, type SseStream } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
/** How long a revoked stream may take to end. */
const endWithinMs = 3_000;

type Streams = { watch: SseStream; console: SseStream; marker: string };
type Member = { userId: string; cookie: ApiClient; token: ApiClient; tokenId: string };
type WatchAfter = 'ended' | 'removed' | 'kept';

const dataOf = (e: SseEvent) => e.data as Record<string, unknown>;

describe('Streams end (or narrow) as soon as their caller loses access', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let ops: FakeOperations;
  const team = { a: '', b: '' };
  const server = { a: '', b: '' };
  const roles = { operator: '', viewer: '' };
  let lineSeq = 0;
  let cpu = 100;
  let users = 0;
  const open: SseStream[] = [];

  const created = <T>(res: { status: number; text: string; body: T }, status = 201): T => {
    expect(res.status, res.text).to.equal(status);
    return res.body;
  };
  const print = (text: string) => agent.client.sendConsoleLine({ serverId: server.a, seq: ++lineSeq, text, atUnixMs: Date.now(), truncated: false });
  /** A change to a server that its watchers see. */
  const touch = async (serverId: string) => created(await admin.patch(`/servers/${serverId}`, { resources: { cpuMillis: ++cpu, memoryBytes: GiB / 16 } }), 200);
  const headersOf = (c: ApiClient): Record<string, string> => (c.auth.token ? { authorization: `Bearer ${c.auth.token}` } : { cookie: c.auth.cookie! });

  /** A user of team A (operator unless told) and team B (viewer), signed in, with an API token. */
  const member = async (teamARoles = [roles.operator]): Promise<Member> => {
    const { client, userId } = await createReadyUser(t, admin, `revoked-${++users}`);
    if (teamARoles.length > 0) created(await admin.put(`/teams/${team.a}/members/${userId}`, { roleIds: teamARoles }), 200);
    created(await admin.put(`/teams/${team.b}/members/${userId}`, { roleIds: [roles.viewer] }), 200);
    const token = created(await client.post<CreatedApiToken>('/me/tokens', { name: 'script' }));
    return { userId, cookie: client, token: client.withToken(token.token), tokenId: token.id };
  };

  /** Opens the watch and server A's console as the given clients, and proves both deliver. */
  const openStreams = async (watchAs: ApiClient, consoleAs: ApiClient): Promise<Streams> => {
    const watch = await openSse(`${t.baseUrl}/api/v1/servers/watch`, headersOf(watchAs));
    const console = await openSse(`${t.baseUrl}/api/v1/servers/${server.a}/console?tail=0`, headersOf(consoleAs));
    open.push(watch, console);
    expect([watch.status, console.status]).to.deep.equal([200, 200]);
    await watch.next((e) => e.event === 'synced');
    await console.next((e) => e.event === 'replayed');
    const marker = `line-${lineSeq + 1}`;
    print(`${marker} before`);
    await console.next((e) => e.event === 'line' && dataOf(e).text === `${marker} before`);
    await touch(server.a);
    await watch.next((e) => e.event === 'server' && dataOf(e).id === server.a && dataOf(e).resources !== undefined && (dataOf(e).resources as { cpuMillis: number }).cpuMillis === cpu);
    return { watch, console, marker };
  };

  const endedWithRevocation = async (stream: SseStream, what: string) => {
    const end = await stream.next((e) => e.event === 'end', endWithinMs);
    expect(end.data, what).to.deep.equal({ reason: 'access_revoked' });
    let closed = false;
    await Promise.race([stream.ended.then(() => (closed = true)), new Promise((resolve) => setTimeout(resolve, endWithinMs))]);
    expect(closed, `${what} closed after its end event`).to.equal(true);
    expect(stream.events.at(-1)?.event, `${what}: nothing after end`).to.equal('end');
  };

  /**
   * Revokes, then prints a console line and changes each server. The console ends without the
   * line; the watch ends, or drops server A (and tells nothing more of it), or keeps it.
   */
  const expectRevoked = async (s: Streams, watchAfter: WatchAfter, revoke: () => Promise<unknown>) => {
    const seenBefore = s.watch.events.length;
    await revoke();
    print(`${s.marker} after`);
    await touch(server.a);
    const cpuAfter = cpu;
    await touch(server.b);
    await endedWithRevocation(s.console, 'console');
    expect(s.console.events.map((e) => dataOf(e).text), 'no line printed after the revocation').not.to.include(`${s.marker} after`);
    const later = () => s.watch.events.slice(seenBefore);
    const isA = (e: SseEvent) => dataOf(e).id === server.a;
    const changedAfter = (e: SseEvent) => e.event === 'server' && isA(e) && (dataOf(e).resources as { cpuMillis: number }).cpuMillis === cpuAfter;
    if (watchAfter === 'ended') {
      await endedWithRevocation(s.watch, 'watch');
      expect(later().filter(changedAfter), 'no change after the revocation').to.deep.equal([]);
      return;
    }
    await s.watch.next((e) => e.event === 'server' && dataOf(e).id === server.b && s.watch.events.indexOf(e) >= seenBefore, endWithinMs);
    expect(later().map((e) => e.event), 'the watch goes on').not.to.include('end');
    if (watchAfter === 'kept') {
      await s.watch.next((e) => changedAfter(e), endWithinMs);
      expect(later().filter((e) => e.event === 'server-deleted'), 'server A still watched').to.deep.equal([]);
      return;
    }
    const removed = later().findIndex((e) => e.event === 'server-deleted' && isA(e));
    expect(removed, 'server A removed from view').to.be.greaterThan(-1);
    expect(later().slice(removed + 1).filter(isA), 'nothing of server A after its removal').to.deep.equal([]);
  };

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'revocation-node');
    ops = await FakeOperations.attach(agent);
    const builtins = (await admin.get<RolePage>('/roles?limit=200')).body.items;
    roles.operator = builtins.find((r) => r.name === 'operator')!.id;
    roles.viewer = builtins.find((r) => r.name === 'viewer')!.id;
    team.a = created(await admin.post<Team>('/teams', { name: 'A' })).id;
    team.b = created(await admin.post<Team>('/teams', { name: 'B' })).id;
    await waitFor(async () => (await admin.get<{ status: { connectionState: string } }>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'the Node HEALTHY' });
    for (const key of ['a', 'b'] as const) {
      server[key] = created(await admin.post<ServerDetail>('/servers', { name: `srv-${key}`, teamId: team[key], software: simcraft, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId })).id;
    }
    for (const id of [server.a, server.b]) await waitForServer(admin, id, (s) => s.phase === 'READY', 'READY');
    created(await admin.post(`/servers/${server.a}/start`), 202);
    await waitForServer(admin, server.a, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING');
  });

  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  after(async () => {
    agent.stop();
    await t.dispose();
    await ops.dispose();
  });

  it('a logout ends the streams of that session', async () => {
    const m = await member();
    const s = await openStreams(m.cookie, m.cookie);
    await expectRevoked(s, 'ended', async () => created(await m.cookie.post('/auth/logout'), 204));
  });

  it('a logout made with a token ends the streams of that token', async () => {
    const m = await member();
    const s = await openStreams(m.token, m.token);
    await expectRevoked(s, 'ended', async () => created(await m.token.post('/auth/logout'), 204));
  });

  it('a password reset ends the streams of every session and token', async () => {
    const m = await member();
    const s = await openStreams(m.token, m.cookie);
    const issued = created(await admin.post<PasswordResetIssued>(`/users/${m.userId}/password-reset`), 200);
    await expectRevoked(s, 'ended', async () => created(await t.api.post('/auth/password-reset', { token: issued.token, newPassword: 'third-password-3' }), 204));
  });

  it('a password change ends the streams of the other sessions', async () => {
    const m = await member();
    const other = t.api.withCookie(sessionCookieFrom(await t.api.post('/auth/login', { username: `revoked-${users}`, password: 'second-password-2' })));
    const s = await openStreams(other, other);
    await expectRevoked(s, 'ended', async () => created(await m.cookie.post('/me/password', { currentPassword: 'second-password-2', newPassword: 'third-password-3' }), 204));
  });

  it('deleting the API token ends its streams', async () => {
    const m = await member();
    const s = await openStreams(m.token, m.token);
    await expectRevoked(s, 'ended', async () => created(await m.cookie.delete(`/me/tokens/${m.tokenId}`), 204));
  });

  it('deleting the user ends its streams', async () => {
    const m = await member();
    const s = await openStreams(m.cookie, m.token);
    await expectRevoked(s, 'ended', async () => created(await admin.delete(`/users/${m.userId}`), 204));
  });

  it('removal from the team ends its console and drops its servers from the watch', async () => {
    const m = await member();
    const s = await openStreams(m.cookie, m.cookie);
    await expectRevoked(s, 'removed', async () => created(await admin.delete(`/teams/${team.a}/members/${m.userId}`), 204));
  });

  it('a role change without servers.console ends the console; the watch keeps what it may still read', async () => {
    const m = await member();
    const s = await openStreams(m.cookie, m.cookie);
    await expectRevoked(s, 'kept', async () => created(await admin.put(`/teams/${team.a}/members/${m.userId}`, { roleIds: [roles.viewer] }), 200));
  });

  it('a role edited to lose servers.read and servers.console ends the console and drops the servers from the watch', async () => {
    const role = created(await admin.post<Role>('/roles', { name: 'console-watcher', permissions: ['servers.read', 'servers.console'] }));
    const m = await member([role.id]);
    const s = await openStreams(m.cookie, m.token);
    await expectRevoked(s, 'removed', async () => created(await admin.patch(`/roles/${role.id}`, { permissions: ['files.read'] }), 200));
  });

  it('a global administrator demoted loses the console and the servers of teams it is not in', async () => {
    const m = await member([]);
    created(await admin.patch<User>(`/users/${m.userId}`, { globalAdmin: true }), 200);
    const s = await openStreams(m.cookie, m.cookie);
    await expectRevoked(s, 'removed', async () => created(await admin.patch<User>(`/users/${m.userId}`, { globalAdmin: false }), 200));
  });

  it('a token that expires ends its streams at the next periodic re-check', async () => {
    const m = await member();
    const expiring = created(await m.cookie.post<CreatedApiToken>('/me/tokens', { name: 'short', expiresAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString() }));
    const client = m.cookie.withToken(expiring.token);
    const s = await openStreams(client, client);
    await expectRevoked(s, 'ended', async () => t.clock.advance(2 * 3_600_000));
  });
});
