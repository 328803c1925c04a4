import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { buildPluginJar, zipEntries } from '../../src/controller/adapters/plugins/plugin-jar.js';
import { createReadyUser } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import type { AuditEventPage, CatalogPluginDetail, CatalogPluginPage, ConsoleStreamEvent, PluginInstallation, PluginInstallationPage, Problem, RolePage, ServerDetail } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { openSse } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const enc = encodeURIComponent;

describe('plugins end to end: catalog installs with dependencies, uploads, jars on the Node', function () {
  this.timeout(90_000);
  let f: Fleet;
  let serverId: string;
  let viewer: ApiClient;
  const path = (rest = '') => `/servers/${serverId}/plugins${rest}`;
  const install = (body: Record<string, unknown>) => f.admin.post<PluginInstallation>(path(), body);
  const list = async () => (await f.admin.get<PluginInstallationPage>(path('?limit=200'))).body.items;
  const byPlugin = async (pluginId: string) => (await list()).find((i) => i.pluginId === pluginId);
  const upload = (jar: Buffer, fileName?: string, client?: ApiClient) =>
    (client ?? f.admin).post<PluginInstallation>(path(`/upload${fileName ? `?fileName=${enc(fileName)}` : ''}`), undefined, { rawBody: jar });
  const rootOf = () => join(f.agentDir, 'servers', serverId, 'root');

  before(async () => {
    f = await startFleet();
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'plugged', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    const v = await createReadyUser(f.t, f.admin, 'watcher');
    const roles = (await f.admin.get<RolePage>('/roles')).body.items;
    await f.admin.put(`/teams/${f.teamId}/members/${v.userId}`, { roleIds: [roles.find((r) => r.name === 'viewer')!.id] });
    viewer = v.client;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY');
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
  after(async () => f?.dispose());

  it('the sample catalog is there offline: a dozen plugins, a denylisted version', async () => {
    const res = await viewer.get<CatalogPluginPage>('/catalog/plugins?platform=paper&gameVersion=1.21.4&limit=200');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.items.length).to.be.at.least(10);
    const core = await viewer.get<CatalogPluginDetail>(`/catalog/plugins/${enc('sample:coreprotect')}`);
    expect(core.body.versions.find((v) => v.version === '22.4')?.denied?.reason).to.match(/data loss/);
  });

  it('installs a chain: dependencies marked, requiredBy right, generation unchanged', async () => {
    const generation = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body.generation;
    const res = await install({ pluginId: 'sample:essentialsx-chat' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ pluginId: 'sample:essentialsx-chat', source: 'CATALOG', verified: true, compatibilityConfirmed: true, dependency: false, version: '2.21.0' });
    const essentials = await byPlugin('sample:essentialsx');
    expect(essentials).to.include({ dependency: true, version: '2.21.0' });
    expect(essentials?.requiredBy).to.deep.equal(['sample:essentialsx-chat']);
    expect((await byPlugin('sample:vaultapi'))?.requiredBy).to.deep.equal(['sample:essentialsx']);
    expect((await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body.generation).to.equal(generation);
    const audit = await f.admin.get<AuditEventPage>(`/audit-events?action=plugin.install&targetId=${serverId}`);
    expect(audit.body.items[0].details).to.include({ pluginId: 'sample:essentialsx-chat', version: '2.21.0' });
  });

  it('installs a diamond: the shared dependency once, required by both sides', async () => {
    const res = await install({ pluginId: 'sample:questsplus' });
    expect(res.status, res.text).to.equal(201);
    const items = await list();
    expect(items.filter((i) => i.pluginId === 'sample:vaultapi')).to.have.length(1);
    expect((await byPlugin('sample:vaultapi'))?.requiredBy).to.deep.equal(['sample:citizens', 'sample:essentialsx']);
    expect((await byPlugin('sample:essentialsx'))?.requiredBy).to.deep.equal(['sample:essentialsx-chat', 'sample:questsplus']);
    expectProblem(await install({ pluginId: 'sample:questsplus' }), 409, 'conflict');
  });

  it('compatibility: incompatible_plugin unless force; plugin_denied for a denylisted version', async () => {
    expectProblem(await install({ pluginId: 'sample:dynmap' }), 409, 'incompatible_plugin', '1.21.4');
    expectProblem(await install({ pluginId: 'sample:velocitab' }), 409, 'incompatible_plugin');
    const forced = await install({ pluginId: 'sample:dynmap', force: true });
    expect(forced.status, forced.text).to.equal(201);
    expect(forced.body.compatibilityConfirmed).to.equal(false);
    expectProblem(await install({ pluginId: 'sample:coreprotect', versionId: 'coreprotect-22.4' }), 409, 'plugin_denied', 'data loss');
    const allowed = await install({ pluginId: 'sample:coreprotect' });
    expect(allowed.body.version).to.equal('22.3');
    expect(allowed.body.updateAvailable).to.equal(undefined);
    expectProblem(await install({ pluginId: 'sample:nope' }), 404, 'not_found');
  });

  it('updateAvailable and update; DELETE refuses a required plugin and takes unneeded dependencies along', async () => {
    const old = await install({ pluginId: 'sample:luckperms', versionId: 'luckperms-5.4.131' });
    expect(old.body.updateAvailable).to.deep.equal({ versionId: 'luckperms-5.4.141', version: '5.4.141' });
    const updated = await f.admin.post<PluginInstallation>(path(`/${old.body.id}/update`), {});
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body).to.include({ id: old.body.id, version: '5.4.141' });
    expect(updated.body.updateAvailable).to.equal(undefined);
    expectProblem(await f.admin.post(path(`/${old.body.id}/update`), { versionId: 'nope' }), 400, 'invalid_request');

    const essentials = await byPlugin('sample:essentialsx');
    expectProblem(await f.admin.delete(path(`/${essentials?.id}`)), 409, 'plugin_required', 'sample:essentialsx-chat');
    const chat = await byPlugin('sample:essentialsx-chat');
    expect((await f.admin.delete(path(`/${chat?.id}`))).status).to.equal(204);
    expect(await byPlugin('sample:essentialsx')).to.not.equal(undefined);
    const quests = await byPlugin('sample:questsplus');
    expect((await f.admin.delete(path(`/${quests?.id}`))).status).to.equal(204);
    const left = (await list()).map((i) => i.pluginId).sort();
    expect(left).to.deep.equal(['sample:coreprotect', 'sample:dynmap', 'sample:luckperms']);
  });

  it('permissions: a viewer reads but cannot install, upload, update or delete', async () => {
    expect((await viewer.get(path())).status).to.equal(200);
    expectProblem(await viewer.post(path(), { pluginId: 'sample:worldguard' }), 403, 'forbidden');
    expectProblem(await upload(await buildPluginJar({ name: 'Nope', version: '1' }), undefined, viewer), 403, 'forbidden');
    const lp = await byPlugin('sample:luckperms');
    expectProblem(await viewer.post(path(`/${lp?.id}/update`), {}), 403, 'forbidden');
    expectProblem(await viewer.delete(path(`/${lp?.id}`)), 403, 'forbidden');
  });

  it('uploads: unverified, upload:<name>, the last path element of fileName, replaced by the same name', async () => {
    const jar = await buildPluginJar({ name: 'HomeMade', version: '1.0' });
    const first = await upload(jar, 'C:\\builds\\target/homemade-1.0.jar');
    expect(first.status, first.text).to.equal(201);
    expect(first.body).to.include({ pluginId: 'upload:HomeMade', name: 'HomeMade', version: '1.0', source: 'UPLOAD', verified: false, compatibilityConfirmed: false, dependency: false, fileName: 'homemade-1.0.jar', sha256: sha256(jar) });
    const second = await upload(await buildPluginJar({ name: 'HomeMade', version: '1.1' }), 'homemade-1.1.jar');
    expect(second.body).to.include({ id: first.body.id, version: '1.1' });
    expect((await list()).filter((i) => i.pluginId === 'upload:HomeMade')).to.have.length(1);
    const audit = await f.admin.get<AuditEventPage>(`/audit-events?action=plugin.upload&targetId=${serverId}`);
    expect(audit.body.items[0].details).to.include({ pluginId: 'upload:HomeMade', version: '1.1', replaced: true });
  });

  it('uploads refused: malformed, no name, a zip bomb, too large (declared and streamed), a long fileName', async () => {
    expectProblem(await upload(Buffer.from('definitely not a jar')), 400, 'invalid_request', 'not a readable jar');
    expectProblem(await upload(await zipEntries({ 'plugin.yml': 'version: 2\n' })), 400, 'invalid_request', 'declares no plugin name');
    const bomb = await zipEntries({ 'plugin.yml': 'name: Bomb\nversion: 1\n', 'zeros.bin': Buffer.alloc(64 * 1024 * 1024) });
    expectProblem(await upload(bomb), 400, 'invalid_request', 'inflates more than');
    expectProblem(await upload(await buildPluginJar({ name: 'X', version: '1' }), 'a'.repeat(256)), 400, 'invalid_request');
    const port = f.t.controller.httpPort;
    const cookie = f.admin.auth.cookie!;
    // Declared too large: refused before a byte is read.
    const declared = await rawPost(port, path('/upload'), cookie, { 'content-length': String(64 * 1024 * 1024 + 1) }, []);
    expect(declared.status).to.equal(413);
    expect((JSON.parse(declared.body) as Problem).code).to.equal('too_large');
    // Streamed without a length: refused as soon as the limit is crossed.
    const streamed = await rawPost(port, path('/upload'), cookie, { 'transfer-encoding': 'chunked' }, new Array<Buffer>(70).fill(Buffer.alloc(1024 * 1024)));
    expect(streamed.status).to.equal(413);
    expect((JSON.parse(streamed.body) as Problem).code).to.equal('too_large');
  });

  it('at the next start the Node has exactly the installed jars (checked) and simcraft enables every one', async () => {
    // An operator's own jar must survive Cairn's changes.
    const own = await buildPluginJar({ name: 'OperatorOwn', version: '9' });
    await f.admin.post(`/servers/${serverId}/start`);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING');
    const installed = await list();
    const pluginsDir = join(rootOf(), 'plugins');
    await writeFile(join(pluginsDir, 'operator-own.jar'), own);
    const jars = async () => (await readdir(pluginsDir)).filter((n) => n.endsWith('.jar')).sort();
    const hashes = async () => Promise.all((await jars()).filter((n) => n !== 'operator-own.jar').map(async (n) => sha256(await readFile(join(pluginsDir, n)))));
    expect((await hashes()).sort()).to.deep.equal(installed.map((i) => i.sha256).sort());

    // Uninstall one, install another; only a restart applies it.
    const dynmap = installed.find((i) => i.pluginId === 'sample:dynmap');
    expect((await f.admin.delete(path(`/${dynmap?.id}`))).status).to.equal(204);
    expect((await install({ pluginId: 'sample:worldguard' })).status).to.equal(201);
    expect((await hashes()).sort()).to.deep.equal(installed.map((i) => i.sha256).sort());
    const generation = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body.generation;
    await f.admin.post(`/servers/${serverId}/restart`);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING' && s.observedGeneration === generation + 1, 'RUNNING after restart');
    const now = await list();
    await waitFor(async () => JSON.stringify((await hashes()).sort()) === JSON.stringify(now.map((i) => i.sha256).sort()), { what: 'the new jar set' });
    expect(await jars()).to.include('operator-own.jar');
    expect((await jars()).some((n) => n.startsWith('dynmap'))).to.equal(false);

    // The server's own console, replayed from its start: an Enabling line for every installed plugin.
    const stream = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${serverId}/console?tail=1000`, { cookie: f.admin.auth.cookie! });
    try {
      expect(stream.status).to.equal(200);
      await stream.next((e) => e.event === 'line' && /Done \(/.test(e.data.text));
      const lines = stream.events.flatMap((e) => (e.event === 'line' ? [e.data.text] : []));
      const declared: Record<string, string> = { 'sample:essentialsx': 'Essentials', 'sample:vaultapi': 'Vault', 'sample:luckperms': 'LuckPerms', 'sample:coreprotect': 'CoreProtect', 'sample:worldguard': 'WorldGuard', 'sample:worldedit': 'WorldEdit', 'upload:HomeMade': 'HomeMade' };
      for (const i of now) {
        const name = declared[i.pluginId];
        expect(name, `a declared name for ${i.pluginId}`).to.be.a('string');
        expect(lines.some((l) => l.includes(`[${name}] Enabling ${name} v${i.version}`)), `${name} v${i.version} enabled:\n${lines.join('\n')}`).to.equal(true);
      }
      expect(lines.some((l) => l.includes('[OperatorOwn] Enabling OperatorOwn v9'))).to.equal(true);
      expect(lines.some((l) => l.includes('[dynmap]'))).to.equal(false);
    } finally {
      stream.close();
    }
    await f.admin.post(`/servers/${serverId}/stop`);
  });
});

/** A raw POST (fetch cannot send a lying Content-Length or stop reading at a 413). */
function rawPost(port: number, path: string, cookie: string, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/api/v1${path}`, method: 'POST', headers: { cookie, 'content-type': 'application/octet-stream', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.flushHeaders();
    let i = 0;
    const writeNext = () => {
      while (i < chunks.length) {
        if (!req.write(chunks[i++])) return void req.once('drain', writeNext);
      }
      if (!headers['content-length']) req.end();
    };
    writeNext();
  });
}
