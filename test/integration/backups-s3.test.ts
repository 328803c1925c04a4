import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEventPage, Backup, BackupDestination, BackupSchedule, ServerDetail } from '../support/api-types.js';
import { adminCredentials } from '../support/controller.js';
import { startFleet, waitForServer, type ExtraNode, type Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { runProgram } from '../support/run-program.js';
import { s3rverAccessKeyId, startTestS3, type TestS3 } from '../support/s3-server.js';
import { waitFor } from '../support/wait-for.js';
import { serverFiles } from '../support/server-files.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every regular file under `dir`, recursively (what a leak check must read). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const holding: string[] = [];
  for (const path of await filesUnder(dir)) if ((await readFile(path).catch(() => Buffer.alloc(0))).includes(needle)) holding.push(path);
  return holding;
}

describe('backups to S3: the Controller alone holds the credentials, the Agents move the objects with presigned requests', function () {
  this.timeout(180_000);
  let f: Fleet;
  let s3: TestS3;
  let second: ExtraNode;
  let destination: BackupDestination;
  const secret = `s3-secret-${randomBytes(12).toString('hex')}`;
  const prefix = 'cairn/test';
  const body = (overrides: Record<string, unknown> = {}) => ({
    name: 'bucket', kind: 'S3', endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix,
    accessKeyId: s3rverAccessKeyId, secretAccessKey: secret, forcePathStyle: true, ...overrides,
  });
  const rootOf = (agentDir: string, id: string) => join(agentDir, 'servers', id, 'root');

  const files = () => serverFiles(f);
  const createServer = (name: string, nodeId?: string) => files().createServer(name, { nodeId });
  const put = (id: string, path: string, content: Buffer) => files().put(id, path, content);
  const mkdir = (id: string, path: string) => files().mkdir(id, path);
  const finished = (backupId: string) => waitFor(async () => {
    const b = (await f.admin.get<Backup>(`/backups/${backupId}`)).body;
    return b.state === 'SUCCEEDED' || b.state === 'FAILED' ? b : undefined;
  }, { timeoutMs: 60_000, what: 'the backup to finish' });
  const backup = async (id: string) => {
    const res = await f.admin.post<Backup>(`/servers/${id}/backups`, { destinationId: destination.id });
    expect(res.status, res.text).to.equal(202);
    const done = await finished(res.body.id);
    expect(done.state, done.error).to.equal('SUCCEEDED');
    return done;
  };
  const restore = async (backupId: string, serverId: string) => {
    const res = await f.admin.post<ServerDetail>(`/backups/${backupId}/restore`, { serverId });
    expect(res.status, res.text).to.equal(202);
    const done = await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY after the restore', 60_000);
    const failure = done.conditions.find((c) => c.reason === 'RESTORE_FAILED');
    if (failure) expect.fail(failure.message);
  };
  const area = () => `${prefix}/${f.teamId}`;
  /** The requests for blobs since request `from`: the bytes go in presigned PUTs and GETs, the Controller only looks, completes and deletes. */
  const blobRequests = (from: number) => s3.requests.slice(from).filter((r) => r.path.startsWith(`/${s3.bucket}/${area()}/blobs/`));
  const blobKeys = async () => (await s3.keys(`${area()}/blobs/`)).map((k) => k.slice(`${area()}/blobs/`.length));

  /** Every request the Controller sent an Agent, as JSON without file bytes: what crossed the link. */
  const crossed: string[] = [];

  before(async () => {
    s3 = await startTestS3();
    s3.expectSecret(secret);
    f = await startFleet();
    second = await f.addNode('node-2');
    const agents = f.t.controller.services.agents;
    const send = agents.request.bind(agents);
    agents.request = (nodeId, body, options) => {
      crossed.push(JSON.stringify(body, (key, value: unknown) => (key === 'data' ? undefined : value)));
      return send(nodeId, body, options);
    };
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning them
    await f?.dispose();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await s3?.dispose();
  });

  it('creates an S3 destination: the secret is not in the answer, the list, the audit log or the store files; the access check leaves nothing', async () => {
    const res = await f.admin.post<BackupDestination>('/backup-destinations', body());
    expect(res.status, res.text).to.equal(201);
    destination = res.body;
    expect(res.body).to.include({ kind: 'S3', endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix, accessKeyId: s3rverAccessKeyId, forcePathStyle: true });
    expect(res.text).to.not.include(secret);
    expect(res.body).to.not.have.property('secretAccessKey');
    const list = await f.admin.get('/backup-destinations');
    expect(list.text).to.include(destination.id).and.not.include(secret);
    const audit = await f.admin.get<AuditEventPage>('/audit-events?action=backup-destination.create');
    expect(audit.body.items.map((e) => e.targetId)).to.include(destination.id);
    expect(audit.text).to.include(s3.bucket).and.not.include(secret);
    expect(await filesHolding(f.t.dataDir, secret), 'the Controller\'s files hold the secret in clear').to.deep.equal([]);
    expect(await s3.keys(prefix)).to.deep.equal([]);
  });

  it('cairn create destination --kind s3 reads the secret from stdin only', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    const cairn = (args: string[], stdin?: string) => runProgram('src/cli/main.ts', args, { env: { CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' }, stdin });
    try {
      const login = await cairn(['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], `${adminCredentials.password}\n`);
      expect(login.code, login.stderr).to.equal(0);
      const s3Args = ['--kind', 's3', '--endpoint', s3.endpoint, '--region', 'us-east-1', '--bucket', s3.bucket, '--prefix', 'cli', '--access-key-id', s3rverAccessKeyId, '--force-path-style'];
      const refused = await cairn(['create', 'destination', 'via-cli', ...s3Args], `${secret}\n`);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.include('--secret-access-key-stdin');
      const created = await cairn(['create', 'destination', 'via-cli', ...s3Args, '--secret-access-key-stdin'], `${secret}\n`);
      expect(created.code, created.stderr).to.equal(0);
      expect(created.stdout).to.include('destination/via-cli created').and.not.include(secret);
      const listed = (await f.admin.get<{ items: BackupDestination[] }>('/backup-destinations')).body.items.find((d) => d.name === 'via-cli');
      expect(listed).to.include({ kind: 'S3', prefix: 'cli', forcePathStyle: true });
      expect((await f.admin.delete(`/backup-destinations/${listed!.id}`)).status).to.equal(204);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses at creation what cannot work, naming the field: an unknown key, a missing bucket, an endpoint that does not answer', async () => {
    expectProblem(await f.admin.post('/backup-destinations', body({ name: 'wrong-key', accessKeyId: 'NOT-A-KEY' })), 400, 'invalid_request', 'body.accessKeyId: S3 does not know this access key (InvalidAccessKeyId)');
    expectProblem(await f.admin.post('/backup-destinations', body({ name: 'no-bucket', bucket: 'no-such-bucket' })), 400, 'invalid_request', 'body.bucket: no such bucket');
    expectProblem(await f.admin.post('/backup-destinations', body({ name: 'closed', endpoint: 'http://127.0.0.1:9' })), 400, 'invalid_request', 'body.endpoint: could not connect');
    expectProblem(await f.admin.post('/backup-destinations', body({ name: 'no-secret', secretAccessKey: undefined })), 400, 'invalid_request', 'body.secretAccessKey');
    expectProblem(await f.admin.post('/backup-destinations', { name: 'mixed', kind: 'CONTROLLER', bucket: s3.bucket }), 400, 'invalid_request', 'body.bucket: only an S3 destination');
    const names = (await f.admin.get<{ items: BackupDestination[] }>('/backup-destinations')).body.items.map((d) => d.name);
    expect(names).to.not.include.members(['wrong-key', 'no-bucket', 'closed', 'no-secret', 'mixed']);
  });

  it('backs a server up into <prefix>/<teamId>/ and restores it onto another Node byte for byte; deleting a backup prunes only what no other backup needs', async () => {
    const from = s3.requests.length;
    const id = await createServer('survival');
    const kept = randomBytes(300_000);
    const large = randomBytes(20 * 1024 * 1024);
    const before = randomBytes(100_000);
    await mkdir(id, 'world');
    await mkdir(id, 'world/empty');
    await put(id, 'world/kept.dat', kept);
    await put(id, 'world/large.mca', large);
    await put(id, 'notes.txt', before);
    const first = await backup(id);
    expect(await s3.keys(`${area()}/manifests/`)).to.deep.equal([`${area()}/manifests/${first.id}.json`]);
    const blobsAfterFirst = await blobKeys();
    expect(blobsAfterFirst).to.include.members([sha256(kept), sha256(large), sha256(before)]);

    const after = randomBytes(100_000);
    await put(id, 'notes.txt', after);
    const latest = await backup(id);
    expect(latest.storedBytes).to.be.lessThan(200_000);

    expect((await f.admin.delete(`/backups/${first.id}`)).status).to.equal(204);
    const blobs = await blobKeys();
    expect(blobs).to.not.include(sha256(before));
    expect(blobs).to.include.members([sha256(kept), sha256(large), sha256(after)]);
    expect(await s3.keys(`${area()}/manifests/`)).to.deep.equal([`${area()}/manifests/${latest.id}.json`]);

    const elsewhere = await createServer('elsewhere', second.nodeId);
    await restore(latest.id, elsewhere);
    const root = rootOf(second.agentDir, elsewhere);
    expect(sha256(await readFile(join(root, 'world', 'kept.dat')))).to.equal(sha256(kept));
    expect(sha256(await readFile(join(root, 'world', 'large.mca')))).to.equal(sha256(large));
    expect(sha256(await readFile(join(root, 'notes.txt')))).to.equal(sha256(after));
    expect(await readdir(join(root, 'world', 'empty'))).to.deep.equal([]);

    const requests = blobRequests(from);
    const carried = requests.filter((r) => r.method === 'PUT' || r.method === 'GET');
    expect(carried.length, 'blob uploads and downloads').to.be.greaterThan(3);
    expect(carried.filter((r) => !r.presigned), 'blob bytes the Controller carried').to.deep.equal([]);
    expect(carried.filter((r) => r.method === 'PUT' && r.query.has('partNumber')).length, 'parts of the 20 MiB file').to.be.greaterThan(1);
    expect(carried.filter((r) => r.method === 'GET').length, 'the restore\'s downloads').to.be.greaterThanOrEqual(3);
    expect([...new Set(requests.filter((r) => !r.presigned).map((r) => r.method))].sort(), 'what the Controller itself asks of blobs').to.satisfy(
      (methods: string[]) => methods.every((m) => ['DELETE', 'HEAD', 'POST'].includes(m)),
    );
  });

  it('a store refusing the Agent\'s presigned request fails the backup or restore with the store\'s answer (never the URL); a 5xx is tried again', async () => {
    const id = await createServer('refused');
    await put(id, 'level.dat', randomBytes(50_000));
    const presignedPut = (r: { presigned: boolean; method: string }) => r.presigned && r.method === 'PUT';
    s3.refuse({ matches: presignedPut, status: 503, code: 'SlowDown', times: 1 });
    const retried = await backup(id);
    expect(retried.fileCount).to.be.greaterThan(0);

    await put(id, 'level.dat', randomBytes(50_000));
    const stopRefusing = s3.refuse({ matches: presignedPut, status: 403, code: 'AccessDenied' });
    try {
      const res = await f.admin.post<Backup>(`/servers/${id}/backups`, { destinationId: destination.id });
      const done = await finished(res.body.id);
      expect(done.state).to.equal('FAILED');
      expect(done.error).to.include('OBJECT_STORE').and.include('403 AccessDenied').and.include(new URL(s3.endpoint).host);
      expect(done.error).to.not.include('X-Amz-Signature').and.not.include(secret);
    } finally {
      stopRefusing();
    }

    const stopGets = s3.refuse({ matches: (r) => r.presigned && r.method === 'GET', status: 403, code: 'AccessDenied' });
    try {
      expect((await f.admin.post(`/backups/${retried.id}/restore`, { serverId: id })).status).to.equal(202);
      const failed = await waitForServer(f.admin, id, (s) => s.conditions.some((c) => c.reason === 'RESTORE_FAILED'), 'the restore to fail', 60_000);
      const condition = failed.conditions.find((c) => c.reason === 'RESTORE_FAILED')!;
      expect(condition.message).to.include('OBJECT_STORE').and.include('403 AccessDenied').and.not.include('X-Amz-Signature');
    } finally {
      stopGets();
    }
  });

  it('a server migrated to another Node restores there the S3 backup taken on the first', async () => {
    const id = await createServer('wanderer');
    const world = randomBytes(200_000);
    await put(id, 'world.dat', world);
    const taken = await backup(id);
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/migrate`, { nodeId: second.nodeId });
    expect(res.status, res.text).to.equal(202);
    const moved = await waitForServer(f.admin, id, (s) => s.phase === 'READY' && s.nodeId === second.nodeId, 'READY on node-2', 60_000);
    expect(moved.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    await put(id, 'world.dat', randomBytes(1000));
    await restore(taken.id, id);
    expect(sha256(await readFile(join(rootOf(second.agentDir, id), 'world.dat')))).to.equal(sha256(world));
  });

  it('a schedule\'s retention deletes the oldest S3 backup: its manifest and the blobs only it used go from the bucket', async () => {
    const id = await createServer('scheduled');
    const schedule = (await f.admin.post<BackupSchedule>(`/servers/${id}/backup-schedules`, { cron: '0 * * * *', destinationId: destination.id, retain: 1 })).body;
    const scheduled = async () => (await f.admin.get<{ items: Backup[] }>(`/servers/${id}/backups`)).body.items.filter((b) => b.scheduleId === schedule.id);
    const contents: Buffer[] = [];
    const taken: Backup[] = [];
    try {
      for (let run = 0; run < 2; run++) {
        contents.push(randomBytes(120_000));
        await put(id, 'hourly.dat', contents[run]);
        const next = (await f.admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body.nextRunAt;
        f.t.clock.advance(new Date(next).getTime() - f.t.clock.now().getTime() + 1000);
        taken.push(await waitFor(async () => (await scheduled()).find((b) => b.state === 'SUCCEEDED' && !taken.some((t) => t.id === b.id)), { timeoutMs: 60_000, what: `scheduled run ${run + 1}` }));
      }
      await waitFor(async () => (await scheduled()).length === 1, { timeoutMs: 30_000, what: 'retention to keep 1' });
      expect((await scheduled()).map((b) => b.id)).to.deep.equal([taken[1].id]);
      expect(await s3.keys(`${area()}/manifests/${taken[0].id}`)).to.deep.equal([]);
      expect(await s3.keys(`${area()}/manifests/${taken[1].id}`)).to.have.length(1);
      const blobs = await blobKeys();
      expect(blobs).to.not.include(sha256(contents[0]));
      expect(blobs).to.include(sha256(contents[1]));
    } finally {
      await f.admin.delete(`/backup-schedules/${schedule.id}`);
    }
  });

  it('rotates the key in place: a refused key changes nothing, a good one is sealed, audited without the secret, and backups go on (API and CLI)', async () => {
    expectProblem(await f.admin.patch(`/backup-destinations/${destination.id}`, { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'whatever' }), 400, 'invalid_request', 'body.accessKeyId: S3 does not know this access key');
    expectProblem(await f.admin.patch(`/backup-destinations/${destination.id}`, {}), 400, 'invalid_request', 'secretAccessKey');
    const builtin = (await f.admin.get<{ items: BackupDestination[] }>('/backup-destinations')).body.items.find((d) => d.name === 'controller')!;
    expectProblem(await f.admin.patch(`/backup-destinations/${builtin.id}`, { secretAccessKey: 'x' }), 400, 'invalid_request', 'body.secretAccessKey: only an S3 destination has a key');
    const unchanged = (await f.admin.get<{ items: BackupDestination[] }>('/backup-destinations')).body.items.find((d) => d.id === destination.id);
    expect(unchanged).to.include({ accessKeyId: s3rverAccessKeyId });

    const rotated = `s3-rotated-${randomBytes(12).toString('hex')}`;
    const res = await f.admin.patch<BackupDestination>(`/backup-destinations/${destination.id}`, { secretAccessKey: rotated });
    expect(res.status, res.text).to.equal(200);
    // The Agents' presigned requests are now checked against the new key: the old one would be refused.
    s3.expectSecret(rotated);
    expect(res.body).to.include({ id: destination.id, accessKeyId: s3rverAccessKeyId, bucket: s3.bucket });
    expect(res.text).to.not.include(rotated);
    const audit = await f.admin.get<AuditEventPage>(`/audit-events?action=backup-destination.update&targetId=${destination.id}`);
    expect(audit.body.items.map((e) => e.outcome)).to.include.members(['SUCCESS', 'FAILED']);
    expect(audit.text).to.not.include(rotated).and.not.include(secret);
    expect(await filesHolding(f.t.dataDir, rotated), 'the Controller\'s files hold the new secret in clear').to.deep.equal([]);

    const id = await createServer('rotated');
    await put(id, 'after-rotation.dat', randomBytes(30_000));
    expect((await backup(id)).state).to.equal('SUCCEEDED');

    const home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    const cairn = (args: string[], stdin?: string) => runProgram('src/cli/main.ts', args, { env: { CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' }, stdin });
    try {
      expect((await cairn(['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], `${adminCredentials.password}\n`)).code).to.equal(0);
      const refused = await cairn(['rotate-key', destination.name], `${rotated}\n`);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.include('--secret-access-key-stdin');
      const wrong = await cairn(['rotate-key', destination.name, '--access-key-id', 'NOT-A-KEY', '--secret-access-key-stdin'], `${rotated}\n`);
      expect(wrong.code).to.not.equal(0);
      expect(wrong.stderr).to.include('body.accessKeyId');
      const done = await cairn(['rotate-key', destination.name.toUpperCase(), '--secret-access-key-stdin'], `${secret}\n`);
      expect(done.code, done.stderr).to.equal(0);
      s3.expectSecret(secret);
      expect(done.stdout).to.include(`destination/${destination.name} key rotated`).and.not.include(secret);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('the Agents never see the secret: not in what crossed the link (presigned URLs only), their environment, their data dirs or their logs', async () => {
    const uploads = crossed.filter((r) => r.includes('"snapshotUpload"'));
    const fetches = crossed.filter((r) => r.includes('"stageFetch"'));
    expect(uploads.length, 'uploads asked of Agents').to.be.greaterThan(0);
    expect(fetches.length, 'downloads asked of Agents').to.be.greaterThan(0);
    for (const r of [...uploads, ...fetches]) expect(r).to.include('X-Amz-Signature=');
    expect(crossed.filter((r) => r.includes(secret)), 'requests holding the secret').to.deep.equal([]);
    for (const { agent, agentDir } of [f, second]) {
      const pid = agent.child.pid!;
      expect((await readFile(`/proc/${pid}/environ`)).includes(secret), 'the Agent\'s environment').to.equal(false);
      expect((await readFile(`/proc/${pid}/cmdline`)).includes(secret), 'the Agent\'s command line').to.equal(false);
      expect(await filesHolding(agentDir, secret), 'the Agent\'s data dir').to.deep.equal([]);
      expect(agent.stdout.length + agent.stderr.length, 'the Agent logs at debug level').to.be.greaterThan(0);
      expect(agent.stdout + agent.stderr).to.not.include(secret);
    }
  });

  it('an Agent killed mid-backup leaves the backup FAILED with a reason, and no manifest of it in the bucket', async () => {
    const id = await createServer('interrupted');
    await mkdir(id, 'world');
    for (let i = 0; i < 24; i++) await put(id, `world/r.${i}.mca`, randomBytes(2 * 1024 * 1024));
    const res = await f.admin.post<Backup>(`/servers/${id}/backups`, { destinationId: destination.id });
    expect(res.status, res.text).to.equal(202);
    await waitFor(async () => (await f.admin.get<Backup>(`/backups/${res.body.id}`)).body.state === 'RUNNING', { timeoutMs: 30_000, intervalMs: 10, what: 'the backup to run' });
    await f.agent.kill();
    const done = await finished(res.body.id);
    expect(done.state).to.equal('FAILED');
    expect(done.error).to.be.a('string').and.not.equal('');
    expect(await s3.keys(`${area()}/manifests/${res.body.id}`)).to.deep.equal([]);
    await f.startAgent();
  });
});
