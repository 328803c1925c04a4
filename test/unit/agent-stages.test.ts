import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTemplatesDir } from '../../src/controller/adapters/software/template-catalog.js';
import { AgentError } from '../../src/agent/errors.js';
import type { BackupHost } from '../../src/agent/transfers/backup-host.js';
import { LocalStores } from '../../src/agent/transfers/local-stores.js';
import { Stages, stagesDir } from '../../src/agent/transfers/stages.js';
import { Installer, readInstalled } from '../../src/agent/reconciler/installer.js';
import { FsBlobStore } from '../../src/shared/backup/fs-blob-store.js';
import { backupTree } from '../../src/shared/backup/tree-backup.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import type { ResponsePayload } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';
import { failureOf } from '../support/agent-failure.js';

const serverId = '0190a5c4-0000-7000-8000-000000000001';
// Read at load: a module with top-level await loads as ESM, where the launcher's import.meta.resolve works.
const templateJson = await readFile(join(defaultTemplatesDir(), 'simcraft.json'), 'utf8');
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('agent: stages', () => {
  let dataDir: string;
  let root: string;
  let running: boolean;
  let stages: Stages;
  const software = { template: 'simcraft', version: '1.21.4', build: '' };

  const host: BackupHost = {
    serverOnNode: () => undefined,
    replaceFiles: async (_id, work) => {
      if (running) throw new AgentError('SERVER_RUNNING', 'running');
      await work(root);
    },
  };
  /** Writes a whole file in chunks of `chunk` bytes, with the checksum and size given (the right ones by default). */
  const put = async (stageId: string, path: string, content: string, over: { sha256?: string; size?: number; mode?: number; chunk?: number } = {}) => {
    const data = Buffer.from(content);
    const chunk = over.chunk ?? 4;
    for (let offset = 0; ; offset += chunk) {
      const last = offset + chunk >= data.length;
      await stages.write({ stageId, path, directory: false, offset, data: data.subarray(offset, offset + chunk), last, sha256: over.sha256 ?? sha256(data), size: over.size ?? data.length, mode: over.mode ?? 0o644 });
      if (last) return;
    }
  };
  const scan = async (stageId: string) => {
    const parts: ResponsePayload[] = [];
    const last = await stages.scan(stageId, { sendPart: (p) => parts.push(p) });
    return [...parts, last].flatMap((p) => (p.payload === 'snapshotManifest' ? p.snapshotManifest.entries : [])) as ManifestEntry[];
  };

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-stages-'));
    root = join(dataDir, 'servers', serverId, 'root');
    running = false;
    stages = await Stages.open({ dataDir, host, installer: new Installer(join(dataDir, 'cache'), { fetch: () => Promise.reject(new Error('this test installs built-in programs only')) }), stores: new LocalStores(dataDir), logger: silentLogger });
  });

  afterEach(async () => {
    await stages.abortAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes files in chunks and lists them with the sha256 checked as they arrived', async () => {
    await stages.begin({ stageId: 'st-1', serverId, leaseMs: 60_000 });
    await put('st-1', 'world/level.dat', 'level data', { mode: 0o600 });
    await put('st-1', 'empty.txt', '');
    const entries = await scan('st-1');
    expect(entries).to.deep.equal([
      { path: 'empty.txt', type: 'FILE', size: 0, mode: 0o644, sha256: sha256('') },
      { path: 'world', type: 'DIRECTORY', size: 0, mode: entries[1].mode, sha256: '' },
      { path: 'world/level.dat', type: 'FILE', size: 10, mode: 0o600, sha256: sha256('level data') },
    ]);
  });

  it('refuses a file whose sha256 or size is not what arrived (CHECKSUM_MISMATCH) and drops it from the stage', async () => {
    await stages.begin({ stageId: 'st-2', serverId, leaseMs: 60_000 });
    await put('st-2', 'world/level.dat', 'the good copy');
    const wrong = await failureOf(put('st-2', 'world/level.dat', 'a damaged copy', { sha256: sha256('something else') }));
    expect(wrong.code).to.equal('CHECKSUM_MISMATCH');
    expect(wrong.message).to.not.include('damaged copy');
    expect((await failureOf(put('st-2', 'short.txt', 'abc', { size: 4 }))).code).to.equal('CHECKSUM_MISMATCH');
    expect((await scan('st-2')).map((e) => e.path)).to.deep.equal(['world']);
    expect(await readdir(join(stagesDir(dataDir), 'st-2', 'incoming'))).to.deep.equal([]);
  });

  it('refuses paths outside the server\'s files, chunks out of order, and chunks over 1 MiB', async () => {
    await stages.begin({ stageId: 'st-3', serverId, leaseMs: 60_000 });
    for (const path of ['.cairn/simcraft.mjs', '../escape', '/etc/passwd', 'a/../../b', 'a//b', '']) {
      expect((await failureOf(put('st-3', path, 'x'))).code, path).to.equal('INVALID_PATH');
    }
    const chunk = { stageId: 'st-3', path: 'a.txt', directory: false, data: Buffer.from('abcd'), last: false, sha256: '', mode: 0, size: 0 };
    expect((await failureOf(stages.write({ ...chunk, offset: 4 }))).code).to.equal('INVALID_REQUEST');
    await stages.write({ ...chunk, offset: 0 });
    expect((await failureOf(stages.write({ ...chunk, offset: 8 }))).code).to.equal('INVALID_REQUEST');
    expect((await failureOf(stages.write({ ...chunk, offset: 0, data: Buffer.alloc(1024 * 1024 + 1) }))).code).to.equal('TOO_LARGE');
    expect((await failureOf(stages.write({ ...chunk, stageId: 'nope', offset: 0 }))).code).to.equal('NOT_FOUND');
  });

  it('makes directories on request, empty ones too, with their modes applied at the commit', async () => {
    await stages.begin({ stageId: 'st-13', serverId, leaseMs: 60_000 });
    const dir = (path: string, mode: number) => stages.write({ stageId: 'st-13', path, directory: true, mode, offset: 0, data: Buffer.alloc(0), last: false, sha256: '', size: 0 });
    await dir('logs', 0o750);
    await dir('world/data', 0o700);
    await put('st-13', 'world/data/raids.dat', 'raids');
    await dir('world', 0o755);
    expect((await scan('st-13')).map((e) => [e.path, e.type])).to.deep.equal([
      ['logs', 'DIRECTORY'], ['world', 'DIRECTORY'], ['world/data', 'DIRECTORY'], ['world/data/raids.dat', 'FILE'],
    ]);
    expect((await failureOf(dir('world/data/raids.dat', 0o755))).code).to.equal('INVALID_PATH');
    await stages.commit({ stageId: 'st-13', serverId, templateJson, software });
    expect((await stat(join(root, 'logs'))).mode & 0o7777).to.equal(0o750);
    expect((await stat(join(root, 'world', 'data'))).mode & 0o7777).to.equal(0o700);
    expect(await readFile(join(root, 'world', 'data', 'raids.dat'), 'utf8')).to.equal('raids');
  });

  it('removes a path with everything in it; a missing path is fine', async () => {
    await stages.begin({ stageId: 'st-4', serverId, leaseMs: 60_000 });
    await put('st-4', 'world/region/r.0.0.mca', 'region');
    await put('st-4', 'server.properties', 'motd=hi');
    await stages.remove({ stageId: 'st-4', path: 'world' });
    await stages.remove({ stageId: 'st-4', path: 'not/there' });
    expect((await scan('st-4')).map((e) => e.path)).to.deep.equal(['server.properties']);
  });

  it('commits: replaces everything but .cairn with the stage and installs the software again, beside the root', async () => {
    await mkdir(join(root, '.cairn'), { recursive: true });
    await writeFile(join(root, '.cairn', 'network.json'), 'kept');
    await writeFile(join(root, '.cairn', 'simcraft.mjs'), 'an old launcher');
    await mkdir(join(root, 'world'));
    await writeFile(join(root, 'world', 'level.dat'), 'the old world');
    await writeFile(join(root, 'stray.txt'), 'not in the backup');
    await stages.begin({ stageId: 'st-5', serverId, leaseMs: 60_000 });
    await put('st-5', 'world/level.dat', 'the restored world');
    await put('st-5', 'server.properties', 'motd=restored');
    await stages.commit({ stageId: 'st-5', serverId, templateJson, software });
    expect((await readdir(root)).sort()).to.deep.equal(['.cairn', 'server.properties', 'world']);
    expect(await readFile(join(root, 'world', 'level.dat'), 'utf8')).to.equal('the restored world');
    // The software is installed beside the root; what an earlier version left in `.cairn` is moved out of the game's reach.
    expect(await readdir(join(root, '.cairn'))).to.deep.equal([]);
    expect(await readFile(join(root, '..', 'software', 'simcraft.mjs'), 'utf8')).to.not.equal('an old launcher');
    expect(await readInstalled(root)).to.deep.include({ template: 'simcraft', version: '1.21.4' });
    expect(await readdir(stagesDir(dataDir)), 'the stage is gone').to.deep.equal([]);
    expect((await failureOf(stages.commit({ stageId: 'st-5', serverId, templateJson, software }))).code).to.equal('NOT_FOUND');
  });

  it('commits a server this Node never had (a migration target): its directory is made and the software installed', async () => {
    await stages.begin({ stageId: 'st-6', serverId, leaseMs: 60_000 });
    await put('st-6', 'world/level.dat', 'the migrated world');
    await stages.commit({ stageId: 'st-6', serverId, templateJson, software });
    expect(await readFile(join(root, 'world', 'level.dat'), 'utf8')).to.equal('the migrated world');
    expect(await readInstalled(root)).to.deep.include({ template: 'simcraft', version: '1.21.4' });
  });

  it('refuses to commit while the server runs here (the stage is kept), for another server, or with a bad template', async () => {
    await stages.begin({ stageId: 'st-7', serverId, leaseMs: 60_000 });
    await put('st-7', 'a.txt', 'a');
    running = true;
    expect((await failureOf(stages.commit({ stageId: 'st-7', serverId, templateJson, software }))).code).to.equal('SERVER_RUNNING');
    running = false;
    expect((await failureOf(stages.commit({ stageId: 'st-7', serverId: '0190a5c4-0000-7000-8000-000000000009', templateJson, software }))).code).to.equal('INVALID_REQUEST');
    expect((await failureOf(stages.commit({ stageId: 'st-7', serverId, templateJson: '{}', software }))).code).to.equal('INVALID_REQUEST');
    expect((await failureOf(stages.commit({ stageId: 'st-7', serverId, templateJson, software: { ...software, template: 'paper' } }))).code).to.equal('INVALID_REQUEST');
    await stages.commit({ stageId: 'st-7', serverId, templateJson, software });
    expect(await readFile(join(root, 'a.txt'), 'utf8')).to.equal('a');
  });

  it('fills a stage from a backup on this Node, checking each file; a damaged blob is CHECKSUM_MISMATCH', async () => {
    const world = join(dataDir, 'world-src');
    await mkdir(join(world, 'region'), { recursive: true });
    await writeFile(join(world, 'region', 'r.0.0.mca'), 'region bytes');
    await writeFile(join(world, 'level.dat'), 'level');
    const destination = join(dataDir, 'backups');
    await backupTree(world, new FsBlobStore(destination), 'b-1', new Date().toISOString());
    await stages.fromLocal({ stageId: 'st-8', serverId, destinationPath: destination, backupId: 'b-1', leaseMs: 60_000 });
    expect((await scan('st-8')).map((e) => [e.path, e.sha256])).to.deep.equal([
      ['level.dat', sha256('level')], ['region', ''], ['region/r.0.0.mca', sha256('region bytes')],
    ]);
    expect((await failureOf(stages.fromLocal({ stageId: 'st-9', serverId, destinationPath: destination, backupId: 'b-2', leaseMs: 60_000 }))).code).to.equal('NOT_FOUND');
    expect((await failureOf(stages.fromLocal({ stageId: 'st-9', serverId, destinationPath: 'relative/path', backupId: 'b-1', leaseMs: 60_000 }))).code).to.equal('INVALID_PATH');
    const blob = sha256('level');
    await writeFile(join(destination, 'blobs', blob.slice(0, 2), `${blob}.blob`), Buffer.concat([Buffer.from('R'), Buffer.from('tampered')]));
    expect((await failureOf(stages.fromLocal({ stageId: 'st-10', serverId, destinationPath: destination, backupId: 'b-1', leaseMs: 60_000 }))).code).to.equal('CHECKSUM_MISMATCH');
    expect((await readdir(stagesDir(dataDir))).sort(), 'failed stages are removed').to.deep.equal(['st-8']);
  });

  it('removes a stage when its lease runs out, and stages an earlier Agent process left when it opens', async () => {
    await stages.begin({ stageId: 'st-11', serverId, leaseMs: 50 });
    await put('st-11', 'a.txt', 'a');
    await waitFor(async () => !(await stat(join(stagesDir(dataDir), 'st-11')).then(() => true, () => false)), { what: 'the expired stage to go' });
    expect((await failureOf(put('st-11', 'b.txt', 'b'))).code).to.equal('NOT_FOUND');
    await stages.begin({ stageId: 'st-12', serverId, leaseMs: 60_000 });
    const next = await Stages.open({ dataDir, host, installer: new Installer(join(dataDir, 'cache'), { fetch: () => Promise.reject(new Error('this test installs built-in programs only')) }), stores: new LocalStores(dataDir), logger: silentLogger });
    expect(await stat(stagesDir(dataDir)).then(() => true, () => false)).to.equal(false);
    await next.abortAll();
  });
});
