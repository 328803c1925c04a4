import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPluginJar } from '../../src/controller/adapters/plugins/plugin-jar.js';
import type { Backup, BackupDestination, PluginInstallation, PluginInstallationPage, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';
import { serverFiles } from '../support/server-files.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const enc = encodeURIComponent;

describe('backups end to end: real Agent, files back byte for byte, plugins installed again', function () {
  this.timeout(120_000);
  let f: Fleet;
  let nodeDirectoryPath: string;
  const rootOf = (id: string) => join(f.agentDir, 'servers', id, 'root');
  const onDisk = async (id: string, path: string) => readFile(join(rootOf(id), ...path.split('/')));

  const files = () => serverFiles(f);
  const createServer = (name: string, teamId?: string) => files().createServer(name, { teamId });
  const put = (id: string, path: string, content: Buffer) => files().put(id, path, content);
  const mkdir = (id: string, path: string) => files().mkdir(id, path);
  const backup = async (id: string, destinationId?: string) => {
    const res = await f.admin.post<Backup>(`/servers/${id}/backups`, destinationId ? { destinationId } : {});
    expect(res.status, res.text).to.equal(202);
    const done = await waitFor(async () => {
      const b = (await f.admin.get<Backup>(`/backups/${res.body.id}`)).body;
      return b.state === 'SUCCEEDED' || b.state === 'FAILED' ? b : undefined;
    }, { timeoutMs: 60_000, what: 'the backup to finish' });
    expect(done.state, done.error).to.equal('SUCCEEDED');
    return done;
  };
  const restore = async (backupId: string, id: string) => {
    const res = await f.admin.post<ServerDetail>(`/backups/${backupId}/restore`, {});
    expect(res.status, res.text).to.equal(202);
    expect(res.body.phase).to.equal('RESTORING');
    const done = await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY after the restore', 60_000);
    const failure = done.conditions.find((c) => c.reason === 'RESTORE_FAILED');
    if (failure) expect.fail(failure.message);
    return done;
  };

  before(async () => {
    f = await startFleet();
    nodeDirectoryPath = await mkdtemp(join(tmpdir(), 'cairn-node-backups-'));
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    await rm(nodeDirectoryPath, { recursive: true, force: true });
  });

  it('CONTROLLER: a running server backed up, a file and a plugin removed, restored: both back, running again', async () => {
    const id = await createServer('survival');
    const player = randomBytes(300_000);
    await mkdir(id, 'world');
    await mkdir(id, 'world/playerdata');
    await put(id, 'world/playerdata/alex.dat', player);
    await put(id, 'notes.txt', Buffer.from('keep me\n'));
    const jar = await buildPluginJar({ name: 'HomeMade', version: '1.0' });
    const uploaded = await f.admin.post<PluginInstallation>(`/servers/${id}/plugins/upload?fileName=homemade.jar`, undefined, { rawBody: jar });
    expect(uploaded.status, uploaded.text).to.equal(201);
    await f.admin.post(`/servers/${id}/start`);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);

    const taken = await backup(id);
    expect(taken.plugins).to.deep.equal([{ pluginId: 'upload:HomeMade', name: 'HomeMade', version: '1.0' }]);
    expect(taken.software).to.deep.equal(simcraft);
    expect(taken.fileCount).to.be.at.least(2);
    expect(taken.sizeBytes).to.be.at.least(player.length);

    expect((await f.admin.delete(`/servers/${id}/files?path=${enc('world/playerdata/alex.dat')}`)).status).to.equal(204);
    expect((await f.admin.delete(`/servers/${id}/plugins/${uploaded.body.id}`)).status).to.equal(204);
    await put(id, 'notes.txt', Buffer.from('changed after the backup\n'));

    const ready = await restore(taken.id, id);
    expect(ready.desiredState).to.equal('RUNNING');
    expect(sha256(await onDisk(id, 'world/playerdata/alex.dat'))).to.equal(sha256(player));
    expect((await onDisk(id, 'notes.txt')).toString()).to.equal('keep me\n');
    const plugins = (await f.admin.get<PluginInstallationPage>(`/servers/${id}/plugins`)).body.items;
    expect(plugins.map((p) => ({ pluginId: p.pluginId, version: p.version, sha256: p.sha256 }))).to.deep.equal([{ pluginId: 'upload:HomeMade', version: '1.0', sha256: sha256(jar) }]);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING again', 30_000);
    const jars = await readdir(join(rootOf(id), 'plugins'));
    const hashes = await Promise.all(jars.map(async (n) => sha256(await readFile(join(rootOf(id), 'plugins', n)))));
    expect(hashes).to.include(sha256(jar));
    const pre = (await f.admin.get<{ items: Backup[] }>(`/servers/${id}/backups`)).body.items.find((b) => b.trigger === 'PRE_RESTORE');
    expect(pre).to.include({ state: 'SUCCEEDED' });
    await f.admin.post(`/servers/${id}/stop`);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 30_000);
  });

  it('CONTROLLER: a second backup after 1% of the files changed stores under 5% of the world again', async () => {
    const id = await createServer('incremental');
    await mkdir(id, 'world');
    await mkdir(id, 'world/region');
    const files = Array.from({ length: 100 }, (_, i) => ({ path: `world/region/r.${i}.mca`, content: randomBytes(64 * 1024) }));
    for (const file of files) await put(id, file.path, file.content);
    const first = await backup(id);
    expect(first.storedBytes).to.be.greaterThan(first.sizeBytes * 0.9);
    await put(id, files[42].path, randomBytes(64 * 1024));
    const second = await backup(id);
    expect(second.sizeBytes).to.be.within(first.sizeBytes - 1024, first.sizeBytes + 1024);
    expect(second.storedBytes).to.be.greaterThan(0).and.lessThan(second.sizeBytes * 0.05);
  });

  it('CONTROLLER: the files come straight from the Agent, or over the link when the Controller cannot reach it; a second backup reads only what changed either way', async () => {
    const readBytes = async () => {
      const text = (await f.t.api.get('/metrics')).text;
      const series = (path: string) => Number(text.split('\n').find((l) => l.startsWith(`cairn_backup_read_bytes_total{path="${path}"}`))?.split(' ').pop() ?? NaN);
      return { direct: series('direct'), link: series('link') };
    };
    /** A server with 20 files of 256 KiB; backed up, one file changed and backed up again: answers the bytes read by each backup. */
    const twoBackups = async (name: string) => {
      const id = await createServer(name);
      await mkdir(id, 'world');
      for (let i = 0; i < 20; i++) await put(id, `world/r.${i}.mca`, randomBytes(256 * 1024));
      const before = await readBytes();
      await backup(id);
      const between = await readBytes();
      await put(id, 'world/r.7.mca', randomBytes(256 * 1024));
      const second = await backup(id);
      expect(second.storedBytes, 'the changed file only').to.be.within(256 * 1024, 257 * 1024);
      const after = await readBytes();
      const delta = (a: typeof before, b: typeof before) => ({ direct: b.direct - a.direct, link: b.link - a.link });
      return { first: delta(before, between), second: delta(between, after) };
    };
    const reached = await twoBackups('read-direct');
    expect(reached.first.link, 'read over the link').to.equal(0);
    expect(reached.first.direct).to.be.at.least(20 * 256 * 1024);
    expect(reached.second).to.deep.equal({ direct: 256 * 1024, link: 0 });
    // The Agent listens on 127.0.0.1 only: another loopback address refuses the connection at once.
    expect((await f.admin.patch(`/nodes/${f.nodeId}`, { address: '127.0.0.2' })).status).to.equal(200);
    try {
      const relayed = await twoBackups('read-link');
      expect(relayed.first.direct, 'read straight from the Agent').to.equal(0);
      expect(relayed.first.link).to.be.at.least(20 * 256 * 1024);
      expect(relayed.second).to.deep.equal({ direct: 0, link: 256 * 1024 });
    } finally {
      await f.admin.patch(`/nodes/${f.nodeId}`, { address: '' });
    }
  });

  it('CONTROLLER: content is deduplicated within a team only, so storedBytes never tells one team what another holds', async () => {
    const other = await f.admin.post<{ id: string }>('/teams', { name: 'dedup-other' });
    expect(other.status, other.text).to.equal(201);
    const content = randomBytes(256 * 1024);
    const [mine, sibling, theirs] = [await createServer('dedup-a'), await createServer('dedup-b'), await createServer('dedup-c', other.body.id)];
    for (const id of [mine, sibling, theirs]) await put(id, 'guess.bin', content);
    expect((await backup(mine)).storedBytes).to.be.greaterThan(200 * 1024);
    expect((await backup(sibling)).storedBytes, 'the same team shares content').to.be.lessThan(16 * 1024);
    expect((await backup(theirs)).storedBytes, 'another team stores its own copy').to.be.greaterThan(200 * 1024);
  });

  it('NODE_DIRECTORY: kept on the Node, a deleted file restored byte for byte; deleting the backup prunes the store', async () => {
    const destination = await f.admin.post<BackupDestination>('/backup-destinations', { name: 'node-disk', kind: 'NODE_DIRECTORY', path: nodeDirectoryPath });
    expect(destination.status, destination.text).to.equal(201);
    const id = await createServer('local');
    const data = randomBytes(200_000);
    await mkdir(id, 'world');
    await put(id, 'world/data.bin', data);
    const taken = await backup(id, destination.body.id);
    expect(taken).to.include({ destinationId: destination.body.id, nodeId: f.nodeId });
    expect(await readdir(nodeDirectoryPath)).to.not.deep.equal([]);
    expect((await f.admin.delete(`/servers/${id}/files?path=${enc('world/data.bin')}`)).status).to.equal(204);
    await restore(taken.id, id);
    expect(sha256(await onDisk(id, 'world/data.bin'))).to.equal(sha256(data));
    const all = (await f.admin.get<{ items: Backup[] }>(`/servers/${id}/backups`)).body.items;
    const teamArea = join(nodeDirectoryPath, 'teams', f.teamId, 'manifests');
    expect(await readdir(teamArea)).to.have.length(all.length);
    for (const b of all) expect((await f.admin.delete(`/backups/${b.id}`)).status).to.equal(204);
    expect(await readdir(teamArea)).to.deep.equal([]);
  });
});
