import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTemplatesDir } from '../../src/controller/adapters/software/template-catalog.js';
import type { ServerDetail } from '../support/api-types.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { GiB, startFleet, waitForServer, type ExtraNode, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';

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
      { id: '1.21.6', java: 21, builds: [{ id: 6, channel: 'STABLE', bytes: jsServer('6') }] },
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

  it('an update whose download stalls keeps the server running until the new software is on its Node: no downtime', async () => {
    const id = await create('stalled', { template: 'jspaper', version: '1.21.4' }, f.nodeId);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY', 30_000);
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);
    upstream.stallJars = true;
    try {
      const res = await f.admin.post<ServerDetail>(`/servers/${id}/software`, { version: '1.21.6' });
      expect(res.status, res.text).to.equal(202);
      await waitFor(async () => upstream.count(new RegExp(`^/objects/${sha256(jsServer('6'))}$`)) > 0, { timeoutMs: 30_000, what: 'the download asked for' });
      // Give a stop that came first every chance to show.
      await new Promise((r) => setTimeout(r, 1000));
      const during = (await f.admin.get<ServerDetail>(`/servers/${id}`)).body;
      expect(during.workflow?.step).to.equal('fetching the new software');
      expect(during.status.runtimeState).to.equal('RUNNING');
      expect(during.status.startedAt).to.equal(running.status.startedAt);
    } finally {
      upstream.stallJars = false;
      upstream.releaseStalled();
    }
    const done = await waitForServer(f.admin, id, (s) => s.phase === 'READY' && !s.workflow, 'READY after the update', 60_000);
    expect(done.conditions.find((c) => c.reason === 'UPDATE_FAILED')?.message).to.equal(undefined);
    expect(done.software).to.deep.equal({ template: 'jspaper', version: '1.21.6', build: '6' });
  });

  it('an update whose download does not match its listing fails before the stop, naming both checksums; the server runs on', async () => {
    const id = await create('mismatched', { template: 'jspaper', version: '1.21.4' }, f.nodeId);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY', 30_000);
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/software`, { version: '1.21.3', allowDowngrade: true });
    expect(res.status, res.text).to.equal(202);
    const done = await waitForServer(f.admin, id, (s) => s.phase === 'READY' && !s.workflow, 'the update to end', 60_000);
    const message = done.conditions.find((c) => c.reason === 'UPDATE_FAILED')?.message ?? '';
    expect(message).to.include('while fetching the new software');
    expect(message).to.match(new RegExp(`sha256 ${sha256(jsServer('80'))}, not ${sha256(Buffer.from('what the listing promised'))}`));
    expect(done.software).to.deep.equal({ template: 'jspaper', version: '1.21.4', build: '232' });
    expect(done.status.runtimeState).to.equal('RUNNING');
    expect(done.status.startedAt).to.equal(running.status.startedAt);
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
