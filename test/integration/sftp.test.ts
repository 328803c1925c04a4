import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { execFile, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { AuditEventPage, Role, ServerDetail, User } from '../support/api-types.js';
import { waitFor } from '../support/wait-for.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { createReadyUser } from '../support/controller.js';
import { expectProblem } from '../support/problems.js';
import { ed25519KeyPair, sftpConnect, type SftpSession } from '../support/sftp-client.js';

const { STATUS_CODE } = ssh2.utils.sftp;
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const exists = (path: string) => lstat(path).then(() => true, () => false);

/** The SFTP status code a refused request carries (ssh2's client puts it on the error). */
async function refusedWith(work: Promise<unknown>): Promise<number> {
  try {
    await work;
  } catch (e) {
    return (e as { code: number }).code;
  }
  throw new Error('the request was not refused');
}

describe('SFTP on the Controller (real Agent, ssh2\'s client)', function () {
  this.timeout(90_000);
  let f: Fleet;
  let id: string;
  let port: number;
  let prefix: string;
  let outside: string;
  const rootOf = () => join(f.agentDir, 'servers', id, 'root');
  const sessions: SftpSession[] = [];
  const connect = async (username: string, login: { password: string } | { privateKey: string }) => {
    const s = await sftpConnect(port, username, login);
    sessions.push(s);
    return s;
  };

  before(async () => {
    f = await startFleet({ extraArgs: ['--sftp-port', '0'] });
    port = f.t.controller.sftpPort!;
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'sftp', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    id = created.body.id;
    prefix = id.slice(0, 8);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    outside = await mkdtemp(join(tmpdir(), 'cairn-sftp-outside-'));
    await writeFile(join(outside, 'host.txt'), 'host secret');
  });
  afterEach(() => sessions.splice(0).forEach((s) => s.end()));
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    if (outside) await rm(outside, { recursive: true, force: true });
  });

  const member = async (username: string, permissions: string[]) => {
    const role = await f.admin.post<Role>('/roles', { name: `${username}-role`, permissions });
    expect(role.status, role.text).to.equal(201);
    const user = await createReadyUser(f.t, f.admin, username);
    const set = await f.admin.put(`/teams/${f.teamId}/members/${user.userId}`, { roleIds: [role.body.id] });
    expect(set.status, set.text).to.equal(200);
    return user;
  };

  it('server detail names the address, the caller\'s username and the host key the client is shown', async () => {
    const detail = (await f.admin.get<ServerDetail>(`/servers/${id}`)).body;
    expect(detail.sftp).to.deep.include({ host: '127.0.0.1', port, username: `admin.${prefix}` });
    expect(detail.sftp!.hostKeyFingerprint).to.match(/^SHA256:[A-Za-z0-9+/]{43}$/);
    const s = await connect(detail.sftp!.username, { password: 'correct-horse-battery' });
    expect(s.hostKeyFingerprint).to.equal(detail.sftp!.hostKeyFingerprint);
    expect(await s.realpath('.')).to.equal('/');
  });

  it('refuses a wrong password, an unknown server prefix, a short prefix and a user with TOTP on; each is counted in a metric', async () => {
    await expectRefused(connect(`admin.${prefix}`, { password: 'wrong-password' }));
    await expectRefused(connect('admin.ffffffff', { password: 'correct-horse-battery' }));
    await expectRefused(connect(`admin.${prefix.slice(0, 6)}`, { password: 'correct-horse-battery' }));
    const totp = await member('totpuser', ['servers.read', 'files.read']);
    await f.t.controller.repos.users.update({ _id: totp.userId }, { totpSeal: 'sealed-seed' });
    await expectRefused(connect(`totpuser.${prefix}`, { password: 'second-password-2' }));
    const metrics = await f.t.api.get('/metrics', { raw: true } as never);
    expect(metrics.text).to.match(/cairn_sftp_login_failures_total\{reason="bad_credentials"\} [2-9]/);
    expect(metrics.text).to.match(/cairn_sftp_login_failures_total\{reason="no_server"\} [1-9]/);
  });

  it('uploads a tree of 50 files (3 MiB), lists it, reads it back, renames and deletes, as the files on the Node show', async () => {
    const s = await connect(`admin.${id.slice(0, 12)}`, { password: 'correct-horse-battery' });
    await s.mkdir('/world');
    await s.mkdir('/world/region');
    const files = new Map<string, Buffer>();
    for (let i = 0; i < 50; i += 1) files.set(`/world/region/r.${i}.mca`, randomBytes(60_000 + i * 100));
    for (const [path, data] of files) await s.put(path, data);
    const listed = await s.list('/world/region');
    expect(listed.map((e) => e.filename).sort()).to.deep.equal([...files.keys()].map((p) => p.split('/').pop()).sort());
    expect(listed.find((e) => e.filename === 'r.0.mca')!.attrs.size).to.equal(60_000);
    for (const [path, data] of files) expect(sha(await readFile(join(rootOf(), path)))).to.equal(sha(data));
    const big = randomBytes(5 * 1024 * 1024 + 17);
    await s.put('/world/big.dat', big);
    expect(sha(await s.get('/world/big.dat'))).to.equal(sha(big));
    expect((await s.stat('/world')).mode & 0o170000).to.equal(0o040000);
    await s.rename('/world/big.dat', '/world/renamed.dat');
    expect(await exists(join(rootOf(), 'world', 'renamed.dat'))).to.equal(true);
    await s.remove('/world/renamed.dat');
    expect(await exists(join(rootOf(), 'world', 'renamed.dat'))).to.equal(false);
    expect(await refusedWith(s.rmdir('/world/region'))).to.equal(STATUS_CODE.FAILURE);
    s.end();
    await s.closed;
    // An earlier test's session (no writes) is closed too, and its close may be written after this one starts.
    const closes = async () => (await f.admin.get<AuditEventPage>(`/audit-events?action=server.sftp.close&targetId=${id}&limit=200`)).body.items;
    const close = await waitFor(async () => (await closes()).find((e) => Number(e.details.filesWritten) > 0), { what: 'this session\'s close audited' });
    expect(close.details).to.deep.include({ filesWritten: 51, filesDeleted: 1, clientAddress: '127.0.0.1' });
    const opened = (await f.admin.get<AuditEventPage>(`/audit-events?action=server.sftp.open&targetId=${id}&limit=200`)).body.items;
    expect(opened.length).to.be.at.least(1);
    const writes = (await f.admin.get<AuditEventPage>(`/audit-events?action=server.file.write&targetId=${id}&limit=200`)).body.items;
    expect(writes, 'SFTP writes are not each audited').to.deep.equal([]);
  });

  it('refuses paths above the root and links that lead out of it', async () => {
    await symlink(outside, join(rootOf(), 'out'));
    const s = await connect(`admin.${prefix}`, { password: 'correct-horse-battery' });
    expect(await refusedWith(s.stat('/../../etc/passwd'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.get('../host.txt'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.get('/out/host.txt'))).to.not.equal(STATUS_CODE.OK);
    expect(await refusedWith(s.put('/out/planted.txt', Buffer.from('x')))).to.not.equal(STATUS_CODE.OK);
    expect(await exists(join(outside, 'planted.txt'))).to.equal(false);
    expect(await refusedWith(s.list('/out'))).to.not.equal(STATUS_CODE.OK);
    await writeFile(join(rootOf(), 'inside.txt'), 'inside');
    expect(await refusedWith(s.rename('/inside.txt', '/out/inside.txt'))).to.not.equal(STATUS_CODE.OK);
    expect(await exists(join(outside, 'inside.txt'))).to.equal(false);
    expect(await refusedWith(new Promise<void>((resolve, reject) => s.sftp.symlink('/', '/root-link', (e) => (e ? reject(e) : resolve()))))).to.equal(STATUS_CODE.OP_UNSUPPORTED);
    expect(await exists(join(rootOf(), 'root-link'))).to.equal(false);
  });

  it('checks files.write and files.delete per operation: a reader reads and is refused writes and deletes', async () => {
    await member('reader', ['servers.read', 'files.read']);
    await writeFile(join(rootOf(), 'readme.txt'), 'hello reader');
    const s = await connect(`reader.${prefix}`, { password: 'second-password-2' });
    expect((await s.get('/readme.txt')).toString()).to.equal('hello reader');
    expect(await refusedWith(s.put('/written.txt', Buffer.from('no')))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.remove('/readme.txt'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.mkdir('/made'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.rename('/readme.txt', '/moved.txt'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await exists(join(rootOf(), 'written.txt'))).to.equal(false);
    expect(await exists(join(rootOf(), 'readme.txt'))).to.equal(true);
  });

  it('checks files.read: a member who may only see the server is refused ls, stat and get', async () => {
    await member('looker', ['servers.read']);
    await writeFile(join(rootOf(), 'secret.txt'), 'not for lookers');
    const s = await connect(`looker.${prefix}`, { password: 'second-password-2' });
    expect(await refusedWith(s.list('/'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.stat('/secret.txt'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await refusedWith(s.get('/secret.txt'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
  });

  it('checks files.delete: a writer puts, renames and makes folders but is refused rm and rmdir', async () => {
    await member('writer', ['servers.read', 'files.read', 'files.write']);
    const s = await connect(`writer.${prefix}`, { password: 'second-password-2' });
    await s.mkdir('/wdir');
    await s.put('/wdir/w.txt', Buffer.from('written'));
    await s.rename('/wdir/w.txt', '/wdir/v.txt');
    expect(await readFile(join(rootOf(), 'wdir', 'v.txt'), 'utf8')).to.equal('written');
    expect(await refusedWith(s.remove('/wdir/v.txt'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    await rm(join(rootOf(), 'wdir', 'v.txt'));
    expect(await refusedWith(s.rmdir('/wdir'))).to.equal(STATUS_CODE.PERMISSION_DENIED);
    expect(await exists(join(rootOf(), 'wdir'))).to.equal(true);
  });

  it('ends an open session within seconds of its role losing files.read', async () => {
    await member('demoted', ['servers.read', 'files.read']);
    const roleId = (await f.admin.get<{ items: Role[] }>('/roles?limit=200')).body.items.find((r) => r.name === 'demoted-role')!.id;
    const s = await connect(`demoted.${prefix}`, { password: 'second-password-2' });
    expect(await s.realpath('/')).to.equal('/');
    const changed = await f.admin.patch(`/roles/${roleId}`, { permissions: ['servers.read'] });
    expect(changed.status, changed.text).to.equal(200);
    await s.closed;
  });

  it('ends an open session within seconds of the membership being revoked', async () => {
    const { userId } = await member('leaver', ['servers.read', 'files.read', 'files.write']);
    const s = await connect(`leaver.${prefix}`, { password: 'second-password-2' });
    expect(await s.realpath('/')).to.equal('/');
    const revoked = Date.now();
    expect((await f.admin.delete(`/teams/${f.teamId}/members/${userId}`)).status).to.equal(204);
    await s.closed;
    expect(Date.now() - revoked).to.be.below(8_000);
    await expectRefused(connect(`leaver.${prefix}`, { password: 'second-password-2' }));
  });

  it('SSH keys: 201, listed, sign in with the key, refused after DELETE; bad keys and short RSA named body.publicKey; at most 20', async () => {
    const { client } = await member('keyed', ['servers.read', 'files.read']);
    const keys = ed25519KeyPair();
    const added = await client.post<{ id: string; name: string; fingerprint: string; createdAt: string }>('/me/ssh-keys', { name: 'laptop', publicKey: keys.public });
    expect(added.status, added.text).to.equal(201);
    expect(added.body).to.include({ name: 'laptop' });
    expect(added.body.fingerprint).to.match(/^SHA256:/);
    expect((await client.get<{ items: { id: string }[] }>('/me/ssh-keys')).body.items.map((k) => k.id)).to.deep.equal([added.body.id]);
    const s = await connect(`keyed.${prefix}`, { privateKey: keys.private });
    expect(await s.realpath('.')).to.equal('/');
    await expectRefused(connect(`keyed.${prefix}`, { privateKey: ed25519KeyPair().private }));
    expectProblem(await client.post('/me/ssh-keys', { name: 'junk', publicKey: 'ssh-ed25519 AAAAnotakey' }), 400, 'invalid_request', 'body.publicKey');
    const rsa = ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 });
    expectProblem(await client.post('/me/ssh-keys', { name: 'old', publicKey: rsa.public }), 400, 'invalid_request', 'body.publicKey: an RSA key of 2048 bits');
    expectProblem(await client.post('/me/ssh-keys', { name: 'again', publicKey: keys.public }), 409, 'conflict', 'body.publicKey');
    for (let i = 1; i < 20; i += 1) {
      const more = await client.post('/me/ssh-keys', { name: `key-${i}`, publicKey: ed25519KeyPair().public });
      expect(more.status, more.text).to.equal(201);
    }
    expectProblem(await client.post('/me/ssh-keys', { name: 'too-many', publicKey: ed25519KeyPair().public }), 409, 'conflict', '20 SSH keys');
    expect((await client.delete(`/me/ssh-keys/${added.body.id}`)).status).to.equal(204);
    await expectRefused(connect(`keyed.${prefix}`, { privateKey: keys.private }));
    expect((await client.delete(`/me/ssh-keys/${added.body.id}`)).status).to.equal(404);
    const other = (await f.admin.get<User>('/me')).body;
    expect(other.username).to.equal('admin');
  });

  it('works with OpenSSH\'s sftp (key sign-in, batch mode): put a tree, ls, get, rename, rm', async function () {
    const sftpBinary = spawnSync('which', ['sftp']).status === 0;
    if (!sftpBinary) this.skip();
    const { client } = await member('openssh', ['servers.read', 'files.read', 'files.write', 'files.delete']);
    const keys = ed25519KeyPair();
    expect((await client.post('/me/ssh-keys', { name: 'openssh', publicKey: keys.public })).status).to.equal(201);
    const dir = await mkdtemp(join(tmpdir(), 'cairn-openssh-'));
    try {
      await writeFile(join(dir, 'id'), keys.private, { mode: 0o600 });
      await mkdir(join(dir, 'tree', 'sub'), { recursive: true });
      const data = randomBytes(300_000);
      await writeFile(join(dir, 'tree', 'sub', 'a.bin'), data);
      await writeFile(join(dir, 'tree', 'b.txt'), 'bee');
      await writeFile(join(dir, 'batch'), ['put -r tree /tree', 'ls -l /tree', 'get /tree/sub/a.bin back.bin', 'rename /tree/b.txt /tree/c.txt', 'rm /tree/sub/a.bin', 'rmdir /tree/sub', ''].join('\n'));
      // Asynchronously: the Controller answering it runs in this process.
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => execFile('sftp', [
        '-b', join(dir, 'batch'), '-P', String(port), '-i', join(dir, 'id'), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
        '-o', 'IdentitiesOnly=yes', '-o', 'PasswordAuthentication=no', `openssh.${prefix}@127.0.0.1`,
      ], { cwd: dir, encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr })));
      expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(0);
      expect(run.stdout).to.include('b.txt');
      expect(sha(await readFile(join(dir, 'back.bin')))).to.equal(sha(data));
      expect(await readFile(join(rootOf(), 'tree', 'c.txt'), 'utf8')).to.equal('bee');
      expect(await exists(join(rootOf(), 'tree', 'sub'))).to.equal(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function expectRefused(attempt: Promise<SftpSession>): Promise<void> {
  try {
    const s = await attempt;
    s.end();
  } catch (e) {
    expect((e as Error).message).to.match(/authentication methods failed|All configured authentication methods failed/);
    return;
  }
  throw new Error('the sign-in was accepted');
}
