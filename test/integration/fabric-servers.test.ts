import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsoleStreamEvent, ServerDetail, SoftwareSyncResult, TemplateVersionPage } from '../support/api-types.js';
import { fabricLauncherJar } from '../support/fabric-launcher.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { askConsole } from '../support/game-console.js';
import { javaGameJar, javaGameRelease } from '../support/java-game.js';
import { openSse } from '../support/sse.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const conditionsOf = (s: ServerDetail) => s.conditions.map((c) => `${c.reason}: ${c.message}`).join('\n');
const launcherPath = (game: string, loader: string, installer: string) => `/v2/versions/loader/${game}/${loader}/${installer}/server/jar`;

/**
 * The `fabric` template from a local meta.fabricmc.net v2 and piston-meta: versions, the launcher
 * pinned at its first download, and a real Agent running the launcher (a fake built here with the
 * JDK, test/fixtures/fabric-launcher) which runs Mojang's jar (test/fixtures/java-game) from `.cairn`.
 */
describe('Fabric servers: versions from the meta API, the launcher pinned, a real Agent runs it offline', function () {
  this.timeout(180_000);
  let upstream: FakeUpstream;
  let f: Fleet;
  const launchers = new Map<string, Buffer>();
  let vanilla: Buffer;

  const create = async (name: string, software: object, nodeId: string) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, nodeId, software, resources: { cpuMillis: 1000, memoryBytes: GiB / 2 } });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  before(async () => {
    upstream = await FakeUpstream.start();
    vanilla = await javaGameJar('vanilla-1.21.4');
    upstream.mojang = [
      { id: '25w01a', type: 'snapshot', java: 21, bytes: await javaGameJar('snapshot-25w01a') },
      { id: '1.21.4', type: 'release', java: javaGameRelease, bytes: vanilla },
      { id: '1.21.1', type: 'release', java: 16, bytes: await javaGameJar('vanilla-1.21.1') },
    ];
    for (const loader of ['0.16.10', '0.16.9']) launchers.set(`1.21.4/${loader}/1.0.1`, await fabricLauncherJar('1.21.4', loader));
    upstream.fabric = {
      // Newest first, as Fabric lists them; 1.21.3 is stable on Fabric but Mojang's manifest here lacks it.
      games: [{ version: '25w01a', stable: false }, { version: '1.21.4', stable: true }, { version: '1.21.3', stable: true }, { version: '1.21.1', stable: true }],
      loaders: [{ version: '0.17.0-beta.1', stable: false }, { version: '0.16.10', stable: true }, { version: '0.16.9', stable: true }],
      installers: [{ version: '1.1.0', stable: false }, { version: '1.0.1', stable: true }],
      launcher: (game, loader, installer) => launchers.get(`${game}/${loader}/${installer}`),
    };
    f = await startFleet({ extraArgs: upstream.controllerArgs });
    const synced = await f.admin.post<SoftwareSyncResult>('/software/sync');
    expect(synced.status, synced.text).to.equal(200);
    expect(synced.body.sources.find((s) => s.source === 'fabric')).to.deep.include({ ok: true, versionCount: 2 });
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await upstream?.close();
  });

  it('lists the stable game versions Mojang serves, newest first, with the newest stable loader and Mojang\'s Java', async () => {
    const page = await f.admin.get<TemplateVersionPage>('/templates/fabric/versions');
    expect(page.status, page.text).to.equal(200);
    expect(page.body.items.map((v) => [v.version, v.latestBuild, v.java?.minimum])).to.deep.equal([['1.21.4', '0.16.10', javaGameRelease], ['1.21.1', '0.16.10', 16]]);
    expect(page.body.items[0].builds!.map((b) => [b.id, b.channel])).to.deep.equal([['0.16.10', 'STABLE'], ['0.16.9', 'STABLE']]);
    // Nothing fetched yet: a launcher is downloaded (and pinned) when a server is given it.
    expect(upstream.count(/\/server\/jar$/)).to.equal(0);
  });

  it('a real Agent runs a Fabric server: the launcher pinned at its first download, Mojang\'s jar beside it, no download on the Node', async () => {
    const created = await create('fabric', { template: 'fabric', version: '1.21.4' }, f.nodeId);
    expect(created.software).to.deep.equal({ template: 'fabric', version: '1.21.4', build: '0.16.10' });
    const ready = await waitForServer(f.admin, created.id, (s) => s.phase === 'READY' || s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'READY', 60_000);
    expect(ready.phase, conditionsOf(ready)).to.equal('READY');
    const launcher = launchers.get('1.21.4/0.16.10/1.0.1')!;
    expect(upstream.count(new RegExp(`^${launcherPath('1.21.4', '0.16.10', '1.0.1')}$`))).to.equal(1);
    const software = join(f.agentDir, 'servers', created.id, 'software');
    expect(await readFile(join(software, 'fabric-server-launch.jar'))).to.deep.equal(launcher);
    expect(await readFile(join(software, 'minecraft-server.jar'))).to.deep.equal(vanilla);
    const listed = (await f.admin.get<TemplateVersionPage>('/templates/fabric/versions')).body.items[0].builds![0];
    expect(listed).to.deep.include({ id: '0.16.10', sha256: sha256(launcher), size: launcher.length });

    expect((await f.admin.post(`/servers/${created.id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, created.id, (s) => (s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED') || s.conditions.some((c) => c.reason === 'CRASH_LOOP'), 'RUNNING', 90_000);
    expect(running.status.runtimeState, `${conditionsOf(running)}\n${JSON.stringify(running.status.lastCrash)}`).to.equal('RUNNING');
    const console = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${created.id}/console?tail=200`, { cookie: f.admin.auth.cookie! });
    try {
      // The launcher read its own install.properties and found Mojang's jar where the template points it.
      const line = await console.next((e) => e.event === 'line' && /Loading Minecraft/.test(e.data.text), 20_000);
      expect(line.event === 'line' && line.data.text).to.match(/Loading Minecraft 1\.21\.4 with Fabric Loader 0\.16\.10 \(game jar \/.*\/minecraft-server\.jar\)$/);
    } finally {
      console.close();
    }
    expect(await askConsole(f, created.id, 'version', /running java-game build/)).to.match(/build vanilla-1\.21\.4$/);
    expect((await f.admin.post(`/servers/${created.id}/stop`)).status).to.equal(202);
    await waitForServer(f.admin, created.id, (s) => s.status.runtimeState === 'STOPPED' && s.convergence === 'CONVERGED', 'STOPPED', 60_000);
  });

  it('an update to another loader installs that loader\'s pinned launcher beside the same Mojang jar', async () => {
    const created = await create('fabric-update', { template: 'fabric', version: '1.21.4', build: '0.16.9' }, f.nodeId);
    await waitForServer(f.admin, created.id, (s) => s.phase === 'READY', 'READY', 60_000);
    const res = await f.admin.post<ServerDetail>(`/servers/${created.id}/software`, { version: '1.21.4', build: '0.16.10' });
    expect(res.status, res.text).to.equal(202);
    const done = await waitForServer(f.admin, created.id, (s) => s.phase === 'READY' && !s.workflow, 'READY after the update', 60_000);
    expect(done.conditions.find((c) => c.reason === 'UPDATE_FAILED')?.message).to.equal(undefined);
    expect(done.software).to.deep.equal({ template: 'fabric', version: '1.21.4', build: '0.16.10' });
    const software = join(f.agentDir, 'servers', created.id, 'software');
    expect(await readFile(join(software, 'fabric-server-launch.jar'))).to.deep.equal(launchers.get('1.21.4/0.16.10/1.0.1'));
    expect(await readFile(join(software, 'minecraft-server.jar'))).to.deep.equal(vanilla);
    // Each launcher was downloaded once, when first given to a server.
    expect(upstream.count(/\/server\/jar$/)).to.equal(2);
  });

  it('a launcher that changed upstream after its pin is refused: INSTALL_FAILED names both sums, nothing is installed', async () => {
    const pinned = launchers.get('1.21.4/0.16.10/1.0.1')!;
    const changed = await fabricLauncherJar('1.21.4', '0.16.10', true);
    launchers.set('1.21.4/0.16.10/1.0.1', changed);
    // The Controller's copy lost (a Controller on the same store without this data dir), the Node's cache empty: it downloads again.
    await rm(join(f.t.dataDir, 'artifacts', `${sha256(pinned)}.jar`));
    const second = await f.addNode('node-2');
    const created = await create('fabric-changed', { template: 'fabric', version: '1.21.4' }, second.nodeId);
    const failed = await waitForServer(f.admin, created.id, (s) => s.conditions.some((c) => c.reason === 'INSTALL_FAILED'), 'INSTALL_FAILED', 60_000);
    const message = failed.conditions.find((c) => c.reason === 'INSTALL_FAILED')!.message;
    expect(message).to.include(`sha256 ${sha256(changed)}, not ${sha256(pinned)} as pinned at its first download`);
    expect(message).to.match(/differs from the one the Controller took at its first download/);
    expect(failed.status.runtimeState).to.not.equal('RUNNING');
    // Downloaded again (the Agent may retry the install; each try is refused alike).
    expect(upstream.count(new RegExp(`^${launcherPath('1.21.4', '0.16.10', '1.0.1')}$`))).to.be.at.least(2);
    launchers.set('1.21.4/0.16.10/1.0.1', pinned);
  });

  it('a launcher that cannot be fetched at creation refuses the server, naming the build', async () => {
    const res = await f.admin.post<ServerDetail>('/servers', { name: 'no-launcher', teamId: f.teamId, software: { template: 'fabric', version: '1.21.1', build: '0.16.9' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } });
    expect(res.status, res.text).to.equal(400);
    expect(res.text).to.match(/body\.software\.build: the Controller could not fetch Fabric's server launcher: .*HTTP 404/);
  });

  it('upstream down: the last good list stays, and the sync says why it failed', async () => {
    upstream.failWith = 503;
    try {
      const synced = await f.admin.post<SoftwareSyncResult>('/software/sync');
      const fabric = synced.body.sources.find((s) => s.source === 'fabric');
      expect(fabric).to.deep.include({ ok: false, versionCount: 2 });
      expect(fabric?.error).to.match(/HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/v2\/versions\/game/);
      const page = await f.admin.get<TemplateVersionPage>('/templates/fabric/versions');
      expect(page.body.items.map((v) => v.version)).to.deep.equal(['1.21.4', '1.21.1']);
    } finally {
      delete upstream.failWith;
    }
  });
});
