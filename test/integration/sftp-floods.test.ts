import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import type { SFTPWrapper } from 'ssh2';
import type { AuditEventPage, Role, ServerDetail } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { sftpConnect, type SftpLogin, type SftpSession } from '../support/sftp-client.js';
import { waitFor } from '../support/wait-for.js';

const password = 'correct-horse-battery';

/** A TCP connection that says it speaks SSH and then sends nothing more, as a flooding client does. */
function idleSsh(port: number, state: { closed: number }): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    socket.once('close', () => (state.closed += 1));
    socket.once('connect', () => {
      socket.write('SSH-2.0-flood_1.0\r\n');
      resolve(socket);
    });
    // Refused before its connect event is seen: it counts as closed, and is done.
    socket.once('close', () => resolve(socket));
  });
}

/**
 * Floods against the SFTP server: the gate closes extra connections at TCP accept, the sign-in
 * throttles stop a password guesser per address and per account, and the rest of the Controller
 * keeps answering. Loopback addresses other than 127.0.0.1 stand for other clients.
 */
describe('SFTP floods: 1,000 connections and a password guesser (real Agent)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let id: string;
  let port: number;
  let prefix: string;
  const sessions: SftpSession[] = [];

  before(async () => {
    f = await startFleet({ extraArgs: ['--sftp-port', '0'] });
    port = f.t.controller.sftpPort!;
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'flooded', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    id = created.body.id;
    prefix = id.slice(0, 8);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
  });
  afterEach(() => sessions.splice(0).forEach((s) => s.end()));
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  const signIn = async (username: string, login: SftpLogin, from: string) => {
    const s = await sftpConnect(port, username, login, from);
    sessions.push(s);
    return s;
  };
  const refused = (username: string, login: SftpLogin, from: string) => signIn(username, login, from).then(() => false, () => true);
  const metric = async (reason: string) => {
    const text = (await f.t.api.get('/metrics', { raw: true } as never)).text;
    return Number(new RegExp(`cairn_sftp_login_failures_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
  };
  /** How long the API takes to answer server detail, the request a panel makes most. */
  const apiLatency = async () => {
    const started = Date.now();
    const res = await f.admin.get<ServerDetail>(`/servers/${id}`);
    expect(res.status).to.equal(200);
    return Date.now() - started;
  };

  it('1,000 connections from one address: all but 8 closed before any SSH, the API and other clients unaffected, the slots freed when they go', async () => {
    const state = { closed: 0 };
    const flood = Promise.all(Array.from({ length: 1000 }, () => idleSsh(port, state)));
    const during = await apiLatency();
    const sockets = await flood;
    await waitFor(() => state.closed >= 992, { timeoutMs: 30_000, what: '992 of the 1,000 closed', explain: () => `${state.closed} closed` });
    expect(state.closed, 'exactly 8 held, still signing in').to.equal(992);
    expect(during, 'server detail during the flood (ms)').to.be.below(2_000);
    expect(await metric('too_many_connections')).to.be.at.least(992);
    expect(await refused(`admin.${prefix}`, { password }, '127.0.0.1'), 'a 9th connection signing in from the flooding address').to.equal(true);
    const other = await signIn(`admin.${prefix}`, { password }, '127.0.0.2');
    expect(await other.realpath('.')).to.equal('/');
    for (const socket of sockets) socket.destroy();
    await waitFor(async () => !(await refused(`admin.${prefix}`, { password }, '127.0.0.1')), { timeoutMs: 10_000, what: 'the flooding address to sign in again once its sockets are gone' });
  });

  it('caps one address at 16 connections, signed in or not', async () => {
    const from = '127.0.0.6';
    for (let i = 0; i < 16; i += 1) await signIn(`admin.${prefix}`, { password }, from);
    expect(await refused(`admin.${prefix}`, { password }, from)).to.equal(true);
    expect(await refused(`admin.${prefix}`, { password }, '127.0.0.7')).to.equal(false);
  });

  it('caps one connection at 10 SFTP channels open at once; a closed one frees its place and its counts reach the close audit', async () => {
    const s = await signIn(`admin.${prefix}`, { password }, '127.0.0.8');
    const channel = () => new Promise<SFTPWrapper>((resolve, reject) => s.client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp))));
    const opened = [s.sftp];
    for (let i = 1; i < 10; i += 1) opened.push(await channel());
    const eleventh = await channel().then(() => 'opened', (e: unknown) => (e as Error).message);
    expect(eleventh).to.match(/open failure|refused|failure/i);
    await new Promise<void>((resolve, reject) => opened[9].writeFile('/from-channel-10.txt', 'ten', (e) => (e ? reject(e) : resolve())));
    opened[9].end();
    const again = await waitFor(() => channel().catch(() => undefined), { timeoutMs: 10_000, what: 'a channel once the 10th closed' });
    expect(again).to.not.equal(undefined);
    s.end();
    await s.closed;
    const close = await waitFor(async () => (await f.admin.get<AuditEventPage>(`/audit-events?action=server.sftp.close&targetId=${id}&limit=200`)).body.items
      .find((e) => e.details.clientAddress === '127.0.0.8'), { what: 'the connection\'s close audited' });
    expect(close.details).to.deep.include({ filesWritten: 1, bytesWritten: 3 });
  });

  it('a password guesser is throttled per address and per account, counted in a metric, audited not once; the API answers meanwhile', async () => {
    const role = await f.admin.post<Role>('/roles', { name: 'victim-role', permissions: ['servers.read', 'files.read'] });
    const victim = await createReadyUser(f.t, f.admin, 'victim');
    expect((await f.admin.put(`/teams/${f.teamId}/members/${victim.userId}`, { roleIds: [role.body.id] })).status).to.equal(200);
    expect(await refused(`victim.${prefix}`, { password: 'second-password-2' }, '127.0.2.2'), 'the victim signs in before the guessing').to.equal(false);
    const auditBefore = new Set((await f.admin.get<AuditEventPage>('/audit-events?limit=200')).body.items.map((e) => e.id));
    const badBefore = await metric('bad_credentials');
    const throttledBefore = await metric('throttled');

    // Per account and address: 5 wrong passwords, then even the right one is refused from there, not from elsewhere.
    const guesses = Promise.all(Array.from({ length: 8 }, (_, i) => refused(`admin.${prefix}`, { password: `guess-${i}` }, '127.0.0.3')));
    const during = await apiLatency();
    expect(await guesses).to.deep.equal(Array.from({ length: 8 }, () => true));
    expect(during, 'server detail while guesses are checked (ms)').to.be.below(2_000);
    expect(await refused(`admin.${prefix}`, { password }, '127.0.0.3'), 'the right password from the guessing address').to.equal(true);
    expect(await refused(`admin.${prefix}`, { password }, '127.0.0.4'), 'the right password from another address').to.equal(false);

    // Per address: one address guessing many accounts stops after 20 tries, whatever the account.
    for (let i = 0; i < 20; i += 1) await refused(`nobody${i}.${prefix}`, { password: 'guess' }, '127.0.0.5');
    expect(await refused(`admin.${prefix}`, { password }, '127.0.0.5'), 'the right password from an address that guessed 20 times').to.equal(true);

    // Per account: 100 wrong passwords from 20 addresses lock the account's password sign-in from anywhere.
    for (let a = 0; a < 20; a += 1) {
      await Promise.all(Array.from({ length: 5 }, (_, i) => refused(`victim.${prefix}`, { password: `guess-${i}` }, `127.0.1.${a + 1}`)));
    }
    expect(await refused(`victim.${prefix}`, { password: 'second-password-2' }, '127.0.2.1'), 'the victim\'s right password from a new address').to.equal(true);

    expect(await metric('bad_credentials') - badBefore).to.be.at.least(5 + 20 + 100);
    expect(await metric('throttled') - throttledBefore).to.be.at.least(5);
    const added = (await f.admin.get<AuditEventPage>('/audit-events?limit=200')).body.items.filter((e) => !auditBefore.has(e.id));
    expect(added.map((e) => e.action).filter((action) => !action.startsWith('server.sftp.')), 'audit events the guesses made').to.deep.equal([]);
  });
});
