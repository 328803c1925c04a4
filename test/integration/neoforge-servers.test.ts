import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsoleStreamEvent, ServerDetail, SoftwareSyncResult, TemplateVersionPage } from '../support/api-types.js';
import { FakeMaven, type FakeInstaller } from '../support/fake-maven.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { forgeInstallerJar, type FakeInstallerMode } from '../support/forge-installer.js';
import { javaGameJar, javaGameRelease } from '../support/java-game.js';
import { openSse } from '../support/sse.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const conditionsOf = (s: ServerDetail) => s.conditions.map((c) => `${c.reason}: ${c.message}`).join('\n');
const exists = (path: string) => access(path).then(() => true, () => false);
/** The installer's deadline here: the fake one finishes in about a second, the hanging one never. */
const deadlineSeconds = 10;
const sandboxed = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdio: 'ignore' }).status === 0;
/** Outside /tmp, which the sandbox replaces with an empty one: a write here would land on the host. */
const escapeTo = `/var/tmp/cairn-installer-escape-${process.pid}.txt`;

/**
 * The `neoforge` and `forge` templates from a local Maven repository (test/support/fake-maven.ts):
 * versions mapped to game versions, the installer checked against its published checksum and run
 * once per build on the Controller (a fake built here with the JDK, test/fixtures/forge-installer),
 * and a real Agent installing its output and running the game it names (test/fixtures/java-game).
 */
describe('NeoForge and Forge servers: versions from Maven, the installer run on the Controller, a real Agent runs its output', function () {
  this.timeout(240_000);
  let maven: FakeMaven;
  let upstream: FakeUpstream;
  let f: Fleet;
  const neoforge = new Map<string, Buffer>();

  const create = (name: string, software: object) =>
    f.admin.post<ServerDetail & { detail?: string }>('/servers', { name, teamId: f.teamId, nodeId: f.nodeId, software, resources: { cpuMillis: 1000, memoryBytes: GiB / 2 } });
  const installerPath = (v: string) => `/releases/net/neoforged/neoforge/${v}/neoforge-${v}-installer.jar`;

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.mojang = [
      { id: '1.21.4', type: 'release', java: javaGameRelease, bytes: await javaGameJar('vanilla-1.21.4') },
      { id: '1.21.1', type: 'release', java: 16, bytes: await javaGameJar('vanilla-1.21.1') },
    ];
    maven = await FakeMaven.start();
    const modes: [string, FakeInstallerMode][] = [
      ['21.0.5', 'ok'], ['21.1.77', 'ok'], ['21.4.0-beta', 'ok'], ['21.4.130', 'ok'], ['21.4.131', 'fail'], ['21.4.132', 'hang'],
      ['21.4.133', 'escape'], ['21.4.134', 'symlink'], ['21.4.136', 'ok'], ['21.4.137-beta', 'ok'], ['0.25w14craftmine.3-beta', 'ok'],
    ];
    for (const [version, mode] of modes) neoforge.set(version, await forgeInstallerJar('neoforge', version, mode, escapeTo));
    // Oldest first, as Maven lists them; 21.4.130's published checksum is not its jar's.
    maven.neoforge = modes.map(([version]): FakeInstaller => ({ version, bytes: neoforge.get(version)!, ...(version === '21.4.130' ? { listedSha256: 'e'.repeat(64) } : {}) }));
    maven.forge = [
      { version: '1.16.5-36.2.39', bytes: await forgeInstallerJar('forge', '1.16.5-36.2.39', 'legacy') },
      { version: '1.21.4-54.0.6', bytes: await forgeInstallerJar('forge', '1.21.4-54.0.6') },
      // Forge's repository published no .sha256 for this one: its .sha1 is checked.
      { version: '1.21.4-54.0.12', bytes: await forgeInstallerJar('forge', '1.21.4-54.0.12'), published: ['sha1'] },
    ];
    maven.promotions = { '1.21.4-latest': '54.0.12', '1.21.4-recommended': '54.0.6', '1.16.5-recommended': '36.2.39' };
    f = await startFleet({ extraArgs: [...upstream.controllerArgs, ...maven.controllerArgs, '--installer-timeout', String(deadlineSeconds)] });
    const synced = await f.admin.post<SoftwareSyncResult>('/software/sync');
    expect(synced.status, synced.text).to.equal(200);
    expect(synced.body.sources.filter((s) => s.source === 'neoforge' || s.source === 'forge').map((s) => [s.source, s.ok, s.versionCount])).to.have.deep.members([['neoforge', true, 3], ['forge', true, 2]]);
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await maven?.close();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await upstream?.close();
  });

  it('lists each game version the loader versions are for, newest first: builds newest first, the newest stable (Forge: recommended) as default, Java from Mojang', async () => {
    const page = await f.admin.get<TemplateVersionPage>('/templates/neoforge/versions');
    expect(page.status, page.text).to.equal(200);
    expect(page.body.items.map((v) => [v.version, v.latestBuild, v.java?.minimum])).to.deep.equal([['1.21.4', '21.4.136', javaGameRelease], ['1.21.1', '21.1.77', 16], ['1.21', '21.0.5', undefined]]);
    expect(page.body.items[0].builds!.map((b) => [b.id, b.channel])).to.deep.equal([
      ['21.4.137-beta', 'BETA'], ['21.4.136', 'STABLE'], ['21.4.134', 'STABLE'], ['21.4.133', 'STABLE'], ['21.4.132', 'STABLE'],
      ['21.4.131', 'STABLE'], ['21.4.130', 'STABLE'], ['21.4.0-beta', 'BETA'],
    ]);
    const forge = await f.admin.get<TemplateVersionPage>('/templates/forge/versions');
    expect(forge.body.items.map((v) => [v.version, v.latestBuild, v.builds!.map((b) => b.id)])).to.deep.equal([['1.21.4', '54.0.6', ['54.0.12', '54.0.6']], ['1.16.5', '36.2.39', ['36.2.39']]]);
    // Nothing fetched yet: an installer is downloaded (and run) when a server is given it.
    expect(maven.count(/installer\.jar/)).to.equal(0);
  });

  it('a real Agent runs a NeoForge server from the installer\'s output, with no download on the Node; a second server does not run the installer again', async () => {
    const created = await create('neoforge', { template: 'neoforge', version: '1.21.4' });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.software).to.deep.equal({ template: 'neoforge', version: '1.21.4', build: '21.4.136' });
    const ready = await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY' || s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'READY', 60_000);
    expect(ready.phase, conditionsOf(ready)).to.equal('READY');
    const software = join(f.agentDir, 'servers', created.body.id, 'software');
    const own = join(software, 'libraries', 'net', 'neoforged', 'neoforge', '21.4.136');
    expect(await readFile(join(own, 'neoforge-21.4.136-server.jar'))).to.deep.equal(await javaGameJar('neoforge-21.4.136'));
    expect(await readFile(join(own, 'unix_args.txt'), 'utf8')).to.include('-p libraries/cpw/mods/bootstraplauncher/2.0.2/bootstraplauncher-2.0.2.jar');
    expect(await exists(join(software, 'libraries', 'org', 'ow2', 'asm', 'asm', '9.7', 'asm-9.7.jar'))).to.equal(true);
    expect(await exists(join(software, 'run.sh'))).to.equal(true);
    // The installer's own jar and log are not part of what it installed.
    expect(await exists(join(software, 'installer.jar'))).to.equal(false);
    expect(await exists(join(software, 'installer.jar.log'))).to.equal(false);
    const listed = (await f.admin.get<TemplateVersionPage>('/templates/neoforge/versions')).body.items[0].builds!.find((b) => b.id === '21.4.136');
    expect(listed?.sha256).to.equal(sha256(neoforge.get('21.4.136')!));

    expect((await f.admin.post(`/servers/${created.body.id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, created.body.id, (s) => (s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED') || s.conditions.some((c) => c.reason === 'CRASH_LOOP'), 'RUNNING', 90_000);
    expect(running.status.runtimeState, `${conditionsOf(running)}\n${JSON.stringify(running.status.lastCrash)}`).to.equal('RUNNING');
    const console = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${created.body.id}/console?tail=200`, { cookie: f.admin.auth.cookie! });
    try {
      // Started from the installer's argument file: its main class, then its own arguments, then Cairn's nogui.
      const line = await console.next((e) => e.event === 'line' && /Starting java-game/.test(e.data.text), 20_000);
      expect(line.event === 'line' && line.data.text).to.match(/build neoforge-21\.4\.136 \(server\) args=--launchTarget forgeserver nogui$/);
    } finally {
      console.close();
    }
    expect((await f.admin.post(`/servers/${created.body.id}/stop`)).status).to.equal(202);
    await waitForServer(f.admin, created.body.id, (s) => s.status.runtimeState === 'STOPPED' && s.convergence === 'CONVERGED', 'STOPPED', 60_000);

    const second = await create('neoforge-2', { template: 'neoforge', version: '1.21.4', build: '21.4.136' });
    expect(second.status, second.text).to.equal(201);
    const secondReady = await waitForServer(f.admin, second.body.id, (s) => s.phase === 'READY' || s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'READY', 60_000);
    expect(secondReady.phase, conditionsOf(secondReady)).to.equal('READY');
    // Fetched and run once: the second server got the stored output.
    expect(maven.count(new RegExp(`^${installerPath('21.4.136')}$`))).to.equal(1);
  });

  it('a Forge build: the .sha1 checked when no .sha256 is published, its output installed', async () => {
    const created = await create('forge', { template: 'forge', version: '1.21.4', build: '54.0.12' });
    expect(created.status, created.text).to.equal(201);
    const ready = await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY' || s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'READY', 60_000);
    expect(ready.phase, conditionsOf(ready)).to.equal('READY');
    const own = join(f.agentDir, 'servers', created.body.id, 'software', 'libraries', 'net', 'minecraftforge', 'forge', '1.21.4-54.0.12');
    expect(await exists(join(own, 'unix_args.txt'))).to.equal(true);
    expect(maven.count(/1\.21\.4-54\.0\.12-installer\.jar\.sha1$/)).to.equal(1);
  });

  it('a Forge older than 1.17 (no argument file) is started by the jar its installer left', async () => {
    const created = await create('forge-legacy', { template: 'forge', version: '1.16.5' });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.software).to.deep.equal({ template: 'forge', version: '1.16.5', build: '36.2.39' });
    await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY', 'READY', 60_000);
    expect(await exists(join(f.agentDir, 'servers', created.body.id, 'software', 'forge-1.16.5-36.2.39.jar'))).to.equal(true);
    expect((await f.admin.post(`/servers/${created.body.id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, created.body.id, (s) => (s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED') || s.conditions.some((c) => c.reason === 'CRASH_LOOP'), 'RUNNING', 90_000);
    expect(running.status.runtimeState, `${conditionsOf(running)}\n${JSON.stringify(running.status.lastCrash)}`).to.equal('RUNNING');
    expect((await f.admin.post(`/servers/${created.body.id}/stop`)).status).to.equal(202);
    await waitForServer(f.admin, created.body.id, (s) => s.status.runtimeState === 'STOPPED' && s.convergence === 'CONVERGED', 'STOPPED', 60_000);
  });

  it('an installer that does not match its published checksum is refused, naming both sums', async () => {
    const res = await create('mismatch', { template: 'neoforge', version: '1.21.4', build: '21.4.130' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.detail).to.include(`gave sha256 ${sha256(neoforge.get('21.4.130')!)}, not ${'e'.repeat(64)} as published in`);
    expect(res.body.detail).to.match(/^body\.software\.build: /);
  });

  const refusedWithLastLines = async (build: string, lines: RegExp[]) => {
    const res = await create(`refused-${build.replaceAll('.', '-')}`, { template: 'neoforge', version: '1.21.4', build });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.detail).to.include(`INSTALL_FAILED: the NeoForge installer ${build} for 1.21.4 failed on the Controller`);
    for (const line of lines) expect(res.body.detail).to.match(line);
    const listed = (await f.admin.get<TemplateVersionPage>('/templates/neoforge/versions')).body.items[0].builds!.find((b) => b.id === build);
    expect(listed?.sha256, 'nothing recorded as installed').to.equal(undefined);
    return res.body.detail!;
  };

  it('an installer that exits 1 is refused with its last lines; nothing is installed', async () => {
    const detail = await refusedWithLastLines('21.4.131', [/\(exit code 1\); its last lines:\n/, /Download failed: Connection refused\nThere was an error during installation/]);
    expect(detail).to.not.include('Extracted');
  });

  it('an installer that hangs is killed at the deadline and refused with its last lines', async () => {
    const started = Date.now();
    await refusedWithLastLines('21.4.132', [new RegExp(`did not finish within ${deadlineSeconds} s`), /Downloading libraries \(this takes forever\)/]);
    expect(Date.now() - started).to.be.below((deadlineSeconds + 15) * 1000);
  });

  it('an installer that writes outside its directory is stopped by the sandbox and refused; nothing lands outside', async function () {
    if (!sandboxed) this.skip();
    await refusedWithLastLines('21.4.133', [/Could not write \/var\/tmp\/cairn-installer-escape-\d+\.txt: .*Read-only file system/]);
    expect(await exists(escapeTo)).to.equal(false);
  });

  it('an installer that leaves a link out of its directory is refused', async () => {
    const res = await create('symlink', { template: 'neoforge', version: '1.21.4', build: '21.4.134' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.detail).to.include('INSTALL_FAILED: the NeoForge installer 21.4.134 for 1.21.4 ran, but its output is refused: it left a symbolic link libraries/passwd → /etc/passwd');
  });

  it('the repository down: the last good lists stay, and the sync says why', async () => {
    maven.failWith = 503;
    try {
      const synced = await f.admin.post<SoftwareSyncResult>('/software/sync');
      const failed = synced.body.sources.filter((s) => s.source === 'neoforge' || s.source === 'forge');
      expect(failed.map((s) => [s.source, s.ok, s.versionCount])).to.have.deep.members([['neoforge', false, 3], ['forge', false, 2]]);
      expect(failed.find((s) => s.source === 'neoforge')?.error).to.match(/HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/releases\/net\/neoforged\/neoforge\/maven-metadata\.xml/);
      const page = await f.admin.get<TemplateVersionPage>('/templates/neoforge/versions');
      expect(page.body.items.map((v) => v.version)).to.deep.equal(['1.21.4', '1.21.1', '1.21']);
      expect(page.body.items[0].builds!.find((b) => b.id === '21.4.136')?.sha256, 'the installed build still offered').to.equal(sha256(neoforge.get('21.4.136')!));
    } finally {
      delete maven.failWith;
    }
  });
});
