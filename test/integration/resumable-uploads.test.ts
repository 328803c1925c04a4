import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Upload } from '../../src/controller/schemas/file-uploads.js';
import type { AuditEventPage, Role, ServerDetail } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { ed25519KeyPair } from '../support/sftp-client.js';
import { waitFor } from '../support/wait-for.js';

const MiB = 1024 * 1024;
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('resumable uploads (real Agent): cut, resumed, refused, cancelled; SFTP past 64 MiB', function () {
  this.timeout(180_000);
  let f: Fleet;
  let id: string;
  const rootOf = () => join(f.agentDir, 'servers', id, 'root');
  const uploadsDir = () => join(f.agentDir, 'servers', id, 'uploads');
  const begin = (path: string, size: number) => f.admin.post<Upload & { code: string; detail: string }>(`/servers/${id}/files/uploads`, { path, size });
  const send = (uploadId: string, offset: number, data: Buffer) =>
    f.admin.request<Upload & { code: string; offset: number; detail: string }>('PUT', `/servers/${id}/files/uploads/${uploadId}?offset=${offset}`, { rawBody: data });
  const status = async (uploadId: string) => (await f.admin.get<Upload>(`/servers/${id}/files/uploads/${uploadId}`)).body;
  /** Nothing of an unfinished upload in the root: not in a listing, not on disk (temporaries included). */
  const invisible = async (name: string) => {
    const listed = await f.admin.get<{ items: { name: string }[] }>(`/servers/${id}/files?path=.`);
    expect(listed.body.items.map((e) => e.name)).to.not.include(name);
    const onDisk = await readdir(rootOf());
    expect(onDisk.filter((n) => n === name || n.startsWith('.cairn-upload'))).to.deep.equal([]);
  };

  before(async () => {
    f = await startFleet({ extraArgs: ['--sftp-port', '0'] });
    const created = await f.admin.post<ServerDetail>('/servers', {
      name: 'uploads', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB, diskBytes: 400 * MiB },
    });
    expect(created.status, created.text).to.equal(201);
    id = created.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY' && s.status.usage.diskBytes > 0, 'READY with its files measured', 90_000);
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  it('a 100 MiB upload in 16 MiB pieces, cut at 90 %, resumes from the durable offset and arrives whole', async () => {
    const data = randomBytes(100 * MiB);
    const begun = await begin('world.bin', data.length);
    expect(begun.status, begun.text).to.equal(201);
    expect(begun.body).to.include({ path: 'world.bin', size: data.length, offset: 0, completed: false });
    const uploadId = begun.body.id;
    for (let at = 0; at < 80 * MiB; at += 16 * MiB) {
      const piece = await send(uploadId, at, data.subarray(at, at + 16 * MiB));
      expect(piece.status, piece.text).to.equal(200);
      expect(piece.body.offset).to.equal(at + 16 * MiB);
    }
    await invisible('world.bin');
    expect(await readdir(uploadsDir())).to.include(`${uploadId}.part`);

    // The sixth piece (80–96 MiB) is cut after 10 MiB: the connection dies mid-body.
    const cut = request(`${f.t.baseUrl}/api/v1/servers/${id}/files/uploads/${uploadId}?offset=${80 * MiB}`, {
      method: 'PUT', headers: { cookie: f.admin.auth.cookie!, 'content-type': 'application/octet-stream', 'content-length': String(16 * MiB) },
    });
    cut.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => cut.write(data.subarray(80 * MiB, 90 * MiB), (e) => (e ? reject(e) : resolve())));
    await waitFor(async () => (await status(uploadId)).offset >= 89 * MiB || undefined, { what: 'most of the cut piece on the Node', timeoutMs: 30_000 });
    cut.destroy();
    const kept = await waitFor(async () => {
      const now = await status(uploadId);
      return now.offset === 90 * MiB ? now : undefined;
    }, { what: 'the offset to stand where the bytes stopped', timeoutMs: 30_000 });
    expect(kept).to.include({ completed: false, size: data.length });
    await invisible('world.bin');

    const wrong = await send(uploadId, 0, data.subarray(0, MiB));
    expect(wrong.status, wrong.text).to.equal(409);
    expect(wrong.body).to.include({ code: 'upload_offset_mismatch', offset: 90 * MiB });
    const past = await send(uploadId, 90 * MiB, Buffer.alloc(11 * MiB));
    expect(past.status, past.text).to.equal(413);
    expect(past.body.detail).to.include('body');

    const rest = await send(uploadId, 90 * MiB, data.subarray(90 * MiB));
    expect(rest.status, rest.text).to.equal(200);
    expect(rest.body).to.include({ offset: data.length, completed: true });
    expect(sha(await readFile(join(rootOf(), 'world.bin')))).to.equal(sha(data));
    expect(await readdir(uploadsDir())).to.deep.equal([`${uploadId}.json`]);
    expect((await status(uploadId)).completed, 'a completed upload is still shown').to.equal(true);
    const writes = await f.admin.get<AuditEventPage>(`/audit-events?action=server.file.write&targetId=${id}`);
    expect(writes.body.items.map((e) => e.details)).to.deep.include.members([{ path: 'world.bin', size: data.length, sizeBytes: data.length, uploadId, offset: 90 * MiB, bytes: 10 * MiB }]);
  });

  it('refuses a size past the disk limit (507 naming body.size), a bad path (400 naming body.path); cancel removes the partial data', async () => {
    const big = await begin('huge.bin', 500 * MiB);
    expect(big.status, big.text).to.equal(507);
    expect(big.body.code).to.equal('insufficient_storage');
    expect(big.body.detail).to.match(/^body\.size: /).and.include('resources.diskBytes');
    const bad = await begin('../outside.bin', 10);
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body.detail).to.match(/^body\.path: /);
    const cairn = await begin('.cairn/x.bin', 10);
    expect(cairn.status, cairn.text).to.equal(403);

    const begun = await begin('cancelled.bin', 4 * MiB);
    expect((await send(begun.body.id, 0, randomBytes(MiB))).status).to.equal(200);
    const cancelled = await f.admin.delete(`/servers/${id}/files/uploads/${begun.body.id}`);
    expect(cancelled.status, cancelled.text).to.equal(204);
    expect(await readdir(uploadsDir())).to.not.include(`${begun.body.id}.part`);
    expect((await f.admin.get(`/servers/${id}/files/uploads/${begun.body.id}`)).status).to.equal(404);
    await invisible('cancelled.bin');
  });

  it('OpenSSH\'s sftp puts a file past 64 MiB, which arrives whole', async function () {
    if (spawnSync('which', ['sftp']).status !== 0) this.skip();
    const role = await f.admin.post<Role>('/roles', { name: 'sftp-writer', permissions: ['servers.read', 'files.read', 'files.write'] });
    const user = await createReadyUser(f.t, f.admin, 'bigput');
    expect((await f.admin.put(`/teams/${f.teamId}/members/${user.userId}`, { roleIds: [role.body.id] })).status).to.equal(200);
    const keys = ed25519KeyPair();
    expect((await user.client.post('/me/ssh-keys', { name: 'big', publicKey: keys.public })).status).to.equal(201);
    const dir = await mkdtemp(join(tmpdir(), 'cairn-sftp-big-'));
    try {
      const data = randomBytes(80 * MiB);
      await writeFile(join(dir, 'id'), keys.private, { mode: 0o600 });
      await writeFile(join(dir, 'big.bin'), data);
      await writeFile(join(dir, 'batch'), 'put big.bin /big.bin\n');
      const run = await new Promise<{ status: number; out: string }>((resolve) => execFile('sftp', [
        '-b', join(dir, 'batch'), '-P', String(f.t.controller.sftpPort), '-i', join(dir, 'id'), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no',
        '-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-o', 'PasswordAuthentication=no', `bigput.${id.slice(0, 8)}@127.0.0.1`,
      ], { cwd: dir, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: `${stdout}\n${stderr}` })));
      expect(run.status, run.out).to.equal(0);
      expect(sha(await readFile(join(rootOf(), 'big.bin')))).to.equal(sha(data));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
