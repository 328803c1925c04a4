import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTemplatesDir } from '../../src/controller/templates/template-catalog.js';
import type { ServerDetail } from '../support/api-types.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { GiB, startFleet, waitForServer, type ExtraNode, type Fleet } from '../support/fleet.js';

/** A "server jar" Node.js can run: prints the ready line with its build, stops on `stop`. */
const jsServer = (build: string) => Buffer.from([
  `console.log('Starting build ${build}');`,
  'console.log(\'Done (0.1s)! For help, type "help"\');',
  'process.stdin.on(\'data\', (d) => { if (String(d).includes(\'stop\')) process.exit(0); });',
].join('\n'));

/** A template of upstream versions whose artifact runs under the Agent's Node.js, so an install can be run for real. */
const runnable = (id: string, versions: object) => ({
  id, name: id, kind: 'GAME_SERVER', networkMember: false, platform: 'paper', versions,
  install: { source: 'upstream', file: 'server.jar' },
  run: { command: '{node}', args: ['{cairnDir}/server.jar'] },
  readyPattern: 'Done \\(.*\\)! For help', stopCommand: 'stop', stopTimeoutSeconds: 5,
  config: { file: 'server.properties', format: 'properties', managed: { 'server-port': '{port}' } },
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('server software through the Controller: fetched from the upstream once, verified, served to Agents over the link', function () {
  this.timeout(120_000);
  let upstream: FakeUpstream;
  let templatesDir: string;
  let f: Fleet;
  let second: ExtraNode;
  const good = jsServer('232');

  const create = async (name: string, software: object, nodeId: string) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, nodeId, software, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.paper.set('paper', [
      { id: '1.21.5', java: 21, builds: [{ id: 5, channel: 'STABLE', bytes: jsServer('5') }] },
      { id: '1.21.4', java: 21, builds: [{ id: 232, channel: 'STABLE', bytes: good }] },
      { id: '1.21.3', java: 21, builds: [{ id: 80, channel: 'STABLE', bytes: jsServer('80'), listedSha256: sha256(Buffer.from('what the listing promised')) }] },
    ]);
    upstream.mojang = [{ id: '1.21.4', type: 'release', java: 21, bytes: jsServer('mojang') }];
    templatesDir = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
    await copyFile(join(defaultTemplatesDir(), 'simcraft.json'), join(templatesDir, 'simcraft.json'));
    await writeFile(join(templatesDir, 'jspaper.json'), JSON.stringify(runnable('jspaper', { source: 'papermc', project: 'paper' })));
    await writeFile(join(templatesDir, 'jsvanilla.json'), JSON.stringify(runnable('jsvanilla', { source: 'mojang' })));
    f = await startFleet({ extraArgs: [...upstream.controllerArgs, '--templates-dir', templatesDir] });
    second = await f.addNode('node-2');
    // The sync at start runs in the background; until it lands the shipped snapshot is in use.
    expect((await f.admin.post('/software/sync')).status).to.equal(200);
  });
  after(async () => {
    await f.dispose();
    await upstream.close();
    await rm(templatesDir, { recursive: true, force: true });
  });

  it('two Agents installing one build: one upstream fetch, both run the verified bytes', async () => {
    await waitForServer(f.admin, await create('one', { template: 'jspaper', version: '1.21.4' }, f.nodeId), (s) => s.phase === 'READY', 'one READY', 30_000);
    const other = await create('two', { template: 'jspaper', version: '1.21.4' }, second.nodeId);
    const ready = await waitForServer(f.admin, other, (s) => s.phase === 'READY', 'two READY', 30_000);
    expect(ready.software).to.deep.equal({ template: 'jspaper', version: '1.21.4', build: '232' });
    expect(upstream.count(new RegExp(`^/objects/${sha256(good)}$`))).to.equal(1);
    expect(await readFile(join(second.agentDir, 'servers', other, 'software', 'server.jar'))).to.deep.equal(good);
    expect((await f.admin.post(`/servers/${other}/start`)).status).to.equal(202);
    await waitForServer(f.admin, other, (s) => s.status.runtimeState === 'RUNNING', 'two RUNNING', 30_000);
  });

  it('an update fetches the new build through the Controller and ends READY on it', async () => {
    const id = await create('updated', { template: 'jspaper', version: '1.21.4' }, f.nodeId);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY', 30_000);
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/software`, { version: '1.21.5' });
    expect(res.status, res.text).to.equal(202);
    const done = await waitForServer(f.admin, id, (s) => s.phase === 'READY' && !s.workflow, 'READY after the update', 60_000);
    expect(done.conditions.map((c) => c.reason)).to.not.include('UPDATE_FAILED');
    expect(done.software).to.deep.equal({ template: 'jspaper', version: '1.21.5', build: '5' });
    expect(await readFile(join(f.agentDir, 'servers', id, 'software', 'server.jar'), 'utf8')).to.contain('build 5');
  });

  it('a download that does not match its listed sha256 is never installed or run: INSTALL_FAILED says so', async () => {
    const id = await create('tampered', { template: 'jspaper', version: '1.21.3' }, f.nodeId);
    const failed = await waitForServer(f.admin, id, (s) => s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'INSTALL_FAILED', 30_000);
    expect(failed.conditions.find((c) => c.reason === 'INSTALL_FAILED')?.message).to.match(/checksum mismatch: http:\/\/127\.0\.0\.1:\d+\/objects\/[0-9a-f]{64} gave sha256 [0-9a-f]{64}, not [0-9a-f]{64}/);
    expect(failed.status.runtimeState).to.not.equal('RUNNING');
  });

  it('a Mojang server jar, known by its sha1 only, is fetched by sha1 and verified', async () => {
    const id = await create('vanilla-like', { template: 'jsvanilla', version: '1.21.4' }, f.nodeId);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY', 30_000);
    expect(await readFile(join(f.agentDir, 'servers', id, 'software', 'server.jar'), 'utf8')).to.contain('mojang');
  });
});
