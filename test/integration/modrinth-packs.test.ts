import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerDetail, TemplateVersionPage } from '../support/api-types.js';
import { fabricLauncherJar } from '../support/fabric-launcher.js';
import { FakeModrinth, type FakePackVersion } from '../support/fake-modrinth.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { javaGameJar, javaGameRelease } from '../support/java-game.js';
import { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const conditionsOf = (s: ServerDetail) => s.conditions.map((c) => `${c.reason}: ${c.message}`).join('\n');
const isRunning = (s: ServerDetail) => s.phase === 'READY' && s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';
const exists = (path: string) => access(path).then(() => true, () => false);
const jar = (name: string) => Buffer.from(`fake mod ${name}\n`.repeat(20));

/** Pack versions of `testpack`, newest first: C3 names a loader whose launcher cannot start. */
const testpack: FakePackVersion[] = [
  { id: 'C3', versionNumber: '3.0.0', game: '1.21.4', loader: 'fabric-loader', loaderVersion: '0.16.9', files: [{ path: 'mods/mod-a-3.jar', bytes: jar('a3') }] },
  {
    id: 'B2', versionNumber: '2.0.0', game: '1.21.4', loader: 'fabric-loader', loaderVersion: '0.16.10',
    files: [{ path: 'mods/mod-a-2.jar', bytes: jar('a2') }, { path: 'mods/mod-c.jar', bytes: jar('c') }],
    overrides: { 'config/pack.toml': 'version = 2\n' },
  },
  {
    id: 'A1', versionNumber: '1.0.0', game: '1.21.4', loader: 'fabric-loader', loaderVersion: '0.16.10',
    files: [
      { path: 'mods/mod-a-1.jar', bytes: jar('a1'), server: 'required' },
      { path: 'mods/mod-b.jar', bytes: jar('b') },
      { path: 'mods/shaders-client.jar', bytes: jar('client'), server: 'unsupported' },
    ],
    overrides: { 'config/pack.toml': 'version = 1\n', 'config/client-and-server.txt': 'both\n' },
    serverOverrides: { 'config/pack.toml': 'version = 1 (server)\n', 'server-only.txt': 'server\n' },
  },
];

const fine = { game: '1.21.4', loader: 'fabric-loader', loaderVersion: '0.16.10' };
/** One bad pack per refusal, each a version of `badpacks`. */
const badpacks: FakePackVersion[] = [
  { id: 'hash', versionNumber: 'hash', ...fine, files: [{ path: 'mods/x.jar', bytes: jar('x'), listedSha512: 'ab'.repeat(64) }] },
  { id: 'size', versionNumber: 'size', ...fine, files: [{ path: 'mods/x.jar', bytes: jar('x'), listedSize: jar('x').length + 1 }] },
  { id: 'host', versionNumber: 'host', ...fine, files: [{ path: 'mods/x.jar', bytes: jar('x'), downloads: ['https://files.example.com/x.jar'] }] },
  { id: 'dotdot', versionNumber: 'dotdot', ...fine, files: [{ path: 'mods/../../escape.jar', bytes: jar('x') }] },
  { id: 'quilt', versionNumber: 'quilt', game: '1.21.4', loader: 'quilt-loader', loaderVersion: '0.27.0', files: [] },
  { id: 'huge', versionNumber: 'huge', ...fine, files: [{ path: 'mods/huge.jar', bytes: jar('h'), listedSize: 5 * 2 ** 30 }] },
  { id: 'packhash', versionNumber: 'packhash', ...fine, files: [], packSha512: 'cd'.repeat(64) },
];

/**
 * The `modrinth` template end to end, offline: a local Modrinth (test/support/fake-modrinth.ts)
 * serving packs built here, a local Fabric meta API and piston-meta, and a real Agent running the
 * pack's loader (the fake launcher and game jar of the Fabric tests).
 */
describe('Modrinth modpacks: read once by the Controller, run by a real Agent, updated and rolled back', function () {
  this.timeout(240_000);
  let upstream: FakeUpstream;
  let modrinth: FakeModrinth;
  let f: Fleet;
  let serverId = '';
  const root = () => join(f.agentDir, 'servers', serverId, 'root');
  const create = (name: string, version: string, extra: object = {}) =>
    f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, nodeId: f.nodeId, software: { template: 'modrinth', version, ...extra }, resources: { cpuMillis: 1000, memoryBytes: GiB / 2 } });

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.mojang = [{ id: '1.21.4', type: 'release', java: javaGameRelease, bytes: await javaGameJar('vanilla-1.21.4') }];
    const good = await fabricLauncherJar('1.21.4', '0.16.10');
    upstream.fabric = {
      games: [{ version: '1.21.4', stable: true }],
      loaders: [{ version: '0.16.10', stable: true }, { version: '0.16.9', stable: true }],
      installers: [{ version: '1.0.1', stable: true }],
      // 0.16.9's launcher is no jar at all: a server on it exits at once.
      launcher: (_game, loader) => (loader === '0.16.10' ? good : Buffer.from('not a jar\n')),
    };
    modrinth = await FakeModrinth.start();
    modrinth.projects.set('testpack', testpack);
    modrinth.projects.set('badpacks', badpacks);
    f = await startFleet({ extraArgs: [...upstream.controllerArgs, ...modrinth.controllerArgs] });
    const synced = await f.admin.post('/software/sync');
    expect(synced.status, synced.text).to.equal(200);
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await upstream?.close();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await modrinth?.close();
  });

  it('lists a project\'s pack versions newest first, and searches Modrinth\'s packs', async () => {
    expectProblem(await f.admin.get('/templates/modrinth/versions'), 400, 'invalid_request', 'query.project');
    const page = await f.admin.get<TemplateVersionPage>('/templates/modrinth/versions?project=testpack');
    expect(page.status, page.text).to.equal(200);
    expect(page.body.items.map((v) => [v.version, v.name, v.game, v.loader?.template])).to.deep.equal([
      ['testpack:C3', '3.0.0', '1.21.4', 'fabric'], ['testpack:B2', '2.0.0', '1.21.4', 'fabric'], ['testpack:A1', '1.0.0', '1.21.4', 'fabric'],
    ]);
    expect(modrinth.requests.every((r) => r.userAgent.startsWith('cairn/'))).to.equal(true);
    const packs = await f.admin.get<{ items: { slug: string; loaders: string[]; gameVersions: string[] }[] }>('/templates/modrinth/packs?query=test&limit=5');
    expect(packs.status, packs.text).to.equal(200);
    expect(packs.body.items).to.deep.equal([{ slug: 'testpack', title: 'Pack testpack', description: 'The testpack pack', downloads: 1000, gameVersions: ['1.21.4'], loaders: ['fabric'] }]);
    // The plugin catalog searches the same Modrinth for plugins and mods: the pack search is the one asking for modpacks.
    const searches = modrinth.requests.filter((r) => r.path === '/v2/search').map((r) => r.query);
    expect(searches.filter((q) => q.includes('project_type%3Amodpack') && q.includes('query=test'))).to.have.length(1);
    expectProblem(await f.admin.get('/templates/fabric/versions?project=testpack'), 400, 'invalid_request', 'query.project');
  });

  it('a pack server runs on a real Agent: server files and overrides in its root, not the client-only file; its detail shows the pack', async () => {
    expectProblem(await create('with-build', 'testpack:A1', { build: '0.16.10' }), 400, 'invalid_request', 'body.software.build');
    const res = await create('pack', 'testpack:A1');
    expect(res.status, res.text).to.equal(201);
    serverId = res.body.id;
    expect(res.body.software).to.deep.equal({ template: 'modrinth', version: 'testpack:A1' });
    expect(res.body.modpack).to.deep.equal({ project: 'testpack', title: 'Pack 1.0.0', versionId: 'A1', versionName: '1.0.0', game: '1.21.4', loader: { template: 'fabric', build: '0.16.10' } });
    const ready = await waitForServer(f.admin, serverId, (s) => s.phase === 'READY' || s.phase === 'FAILED' || s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'READY', 60_000);
    expect(ready.phase, conditionsOf(ready)).to.equal('READY');
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, serverId, (s) => isRunning(s) || s.conditions.some((c) => c.reason === 'CRASH_LOOP' || c.reason === 'INSTALL_FAILED'), 'RUNNING', 90_000);
    expect(running.status.runtimeState, conditionsOf(running)).to.equal('RUNNING');
    expect(await readFile(join(root(), 'mods', 'mod-a-1.jar'))).to.deep.equal(jar('a1'));
    expect(await readFile(join(root(), 'mods', 'mod-b.jar'))).to.deep.equal(jar('b'));
    expect(await exists(join(root(), 'mods', 'shaders-client.jar'))).to.equal(false);
    expect(await readFile(join(root(), 'config', 'pack.toml'), 'utf8')).to.equal('version = 1 (server)\n');
    expect(await readFile(join(root(), 'config', 'client-and-server.txt'), 'utf8')).to.equal('both\n');
    expect(await readFile(join(root(), 'server-only.txt'), 'utf8')).to.equal('server\n');
    const installed = JSON.parse(await readFile(join(f.agentDir, 'servers', serverId, 'software', 'installed.json'), 'utf8')) as { template: string; version: string; build?: string };
    expect(installed).to.deep.include({ template: 'modrinth', version: 'testpack:A1', build: '0.16.10' });
    // Read once: a second server of the same version fetches nothing from Modrinth again.
    const packFetches = modrinth.count(/\.mrpack$/);
    const again = await create('pack-again', 'testpack:A1');
    expect(again.status, again.text).to.equal(201);
    expect(modrinth.count(/\.mrpack$/)).to.equal(packFetches);
    expect((await f.admin.delete(`/servers/${again.body.id}`)).status).to.be.oneOf([202, 204]);
  });

  it('an update to the next pack version keeps the world and the operator\'s files and removes the mod the pack dropped', async () => {
    await mkdir(join(root(), 'world'), { recursive: true });
    await writeFile(join(root(), 'world', 'my-region.dat'), 'my world\n');
    await writeFile(join(root(), 'mods', 'my-own-mod.jar'), 'operator\n');
    const res = await f.admin.post<ServerDetail>(`/servers/${serverId}/software`, { version: 'testpack:B2' });
    expect(res.status, res.text).to.equal(202);
    const done = await waitForServer(f.admin, serverId, (s) => s.phase === 'READY' && !s.workflow, 'the update to end', 90_000);
    expect(done.conditions.find((c) => c.reason === 'UPDATE_FAILED')?.message).to.equal(undefined);
    expect(done.software).to.deep.equal({ template: 'modrinth', version: 'testpack:B2' });
    expect(done.modpack).to.deep.include({ versionId: 'B2', versionName: '2.0.0' });
    await waitForServer(f.admin, serverId, isRunning, 'RUNNING on B2', 60_000);
    expect(await readFile(join(root(), 'world', 'my-region.dat'), 'utf8')).to.equal('my world\n');
    expect(await readFile(join(root(), 'mods', 'my-own-mod.jar'), 'utf8')).to.equal('operator\n');
    expect(await exists(join(root(), 'mods', 'mod-b.jar'))).to.equal(false);
    expect(await exists(join(root(), 'mods', 'mod-a-1.jar'))).to.equal(false);
    expect(await readFile(join(root(), 'mods', 'mod-c.jar'))).to.deep.equal(jar('c'));
    expect(await readFile(join(root(), 'config', 'pack.toml'), 'utf8')).to.equal('version = 2\n');
  });

  it('an update whose pack version cannot start rolls back to the version before', async () => {
    const res = await f.admin.post<ServerDetail>(`/servers/${serverId}/software`, { version: 'testpack:C3' });
    expect(res.status, res.text).to.equal(202);
    const done = await waitForServer(f.admin, serverId, (s) => s.phase !== 'UPDATING' && !s.workflow, 'the update to end', 120_000);
    expect(done.software).to.deep.equal({ template: 'modrinth', version: 'testpack:B2' });
    expect(done.conditions.find((c) => c.reason === 'UPDATE_FAILED')?.message).to.include('put back');
    await waitForServer(f.admin, serverId, isRunning, 'RUNNING again on B2', 60_000);
    expect(await readFile(join(root(), 'mods', 'mod-c.jar'))).to.deep.equal(jar('c'));
    expect(await exists(join(root(), 'mods', 'mod-a-3.jar'))).to.equal(false);
    expect(await readFile(join(root(), 'world', 'my-region.dat'), 'utf8')).to.equal('my world\n');
  });

  for (const [id, reason] of [
    ['hash', /sha512 .* not .* as the pack lists/], ['size', /sent \d+ bytes; the pack lists \d+|more than the \d+ bytes/],
    ['host', /files\.example\.com.*allowed: cdn\.modrinth\.com/], ['dotdot', /`\.\.` segments are not allowed/],
    ['quilt', /loader quilt-loader, which Cairn does not run/], ['huge', /more than the 4294967296 \(4 GiB\)/], ['packhash', /sha512/],
  ] as const) {
    it(`refuses a pack (${id}) naming body.software.version, and writes nothing`, async () => {
      const res = await create(`bad-${id}`, `badpacks:${id}`);
      expectProblem(res, 400, 'invalid_request', 'body.software.version');
      expect((res.body as unknown as { detail: string }).detail).to.match(reason);
      const servers = await f.admin.get<{ items: { name: string }[] }>('/servers?limit=200');
      expect(servers.body.items.map((s) => s.name)).to.not.include(`bad-${id}`);
    });
  }

  it('a pack over 4 GiB is refused before any of its files is fetched', () => {
    expect(modrinth.count(/^\/files\//)).to.be.greaterThan(0);
    expect(modrinth.count(new RegExp(`^/files/${createHash('sha1').update(jar('h')).digest('hex')}/`))).to.equal(0);
  });

  it('Modrinth down: the last good list of a project stays; a project never listed answers upstream_unavailable', async () => {
    modrinth.failWith = 503;
    try {
      const page = await f.admin.get<TemplateVersionPage>('/templates/modrinth/versions?project=testpack');
      expect(page.status, page.text).to.equal(200);
      expect(page.body.items.map((v) => v.version)).to.deep.equal(['testpack:C3', 'testpack:B2', 'testpack:A1']);
      expect(page.body.items[1].loader).to.deep.equal({ template: 'fabric', build: '0.16.10' });
      expectProblem(await f.admin.get('/templates/modrinth/versions?project=never-seen'), 502, 'upstream_unavailable', 'never-seen');
      expectProblem(await f.admin.get('/templates/modrinth/packs?query=x'), 502, 'upstream_unavailable');
    } finally {
      delete modrinth.failWith;
    }
  });

  it('a restarted Controller knows the pack versions it read: nothing is read again, the server stays as it runs, the last list comes from the store', async () => {
    const packFetches = modrinth.count(/\.mrpack$/);
    f.t = await f.t.restart();
    const admin = new ApiClient(f.t.baseUrl, f.admin.auth);
    modrinth.failWith = 503;
    try {
      const detail = await admin.get<ServerDetail>(`/servers/${serverId}`);
      expect(detail.body.modpack).to.deep.include({ versionId: 'B2', loader: { template: 'fabric', build: '0.16.10' } });
      await waitForServer(admin, serverId, isRunning, 'RUNNING and CONVERGED after the restart', 60_000);
      const page = await admin.get<TemplateVersionPage>('/templates/modrinth/versions?project=testpack');
      expect(page.status, page.text).to.equal(200);
      expect(page.body.items.map((v) => v.version)).to.deep.equal(['testpack:C3', 'testpack:B2', 'testpack:A1']);
      // Read before the restart: a new server of it needs nothing from Modrinth.
      const again = await admin.post<ServerDetail>('/servers', { name: 'after-restart', teamId: f.teamId, nodeId: f.nodeId, software: { template: 'modrinth', version: 'testpack:A1' }, resources: { cpuMillis: 500, memoryBytes: GiB / 4 } });
      expect(again.status, again.text).to.equal(201);
      expect(modrinth.count(/\.mrpack$/)).to.equal(packFetches);
    } finally {
      delete modrinth.failWith;
      f.admin = admin;
    }
  });
});
