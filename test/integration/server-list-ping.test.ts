import { expect } from 'chai';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from 'minecraft-server-util';
import { freePort, SimProcess, simSource } from '../support/sim-process.js';

/**
 * simcraft answers the Minecraft Server List Ping as Paper does, checked with a third-party client
 * from the npm registry (minecraft-server-util: handshake, status, ping), on its own port and
 * through simproxy, which forwards a ping like any connection.
 */
describe('Server List Ping: simcraft answers a real Minecraft client, directly and through simproxy', function () {
  this.timeout(30_000);
  const dirs: string[] = [];
  const sims: SimProcess[] = [];
  let port: number;
  let simcraft: SimProcess;
  let proxyPort: number;

  before(async () => {
    port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'cairn-slp-'));
    dirs.push(dir);
    await writeFile(join(dir, 'server.properties'), `server-port=${port}\nserver-ip=127.0.0.1\nmotd=Ping me\nmax-players=42\n`);
    simcraft = SimProcess.start(simSource('simcraft'), ['--version', '1.21.4'], dir);
    sims.push(simcraft);
    await simcraft.waitForLine(/Done \(.*\)! For help/);
    const proxyDir = await mkdtemp(join(tmpdir(), 'cairn-slp-proxy-'));
    dirs.push(proxyDir);
    await writeFile(join(proxyDir, 'simproxy.json.tmp'), JSON.stringify({ bind: '127.0.0.1', port: 0, routes: [{ serverId: 'a', name: 'a', address: '127.0.0.1', port }] }));
    await rename(join(proxyDir, 'simproxy.json.tmp'), join(proxyDir, 'simproxy.json'));
    const proxy = SimProcess.start(simSource('simproxy'), [], proxyDir);
    sims.push(proxy);
    proxyPort = Number(/:(\d+)$/.exec(await proxy.waitForLine(/Done \(.*\)! Listening on /))![1]);
  });
  after(async () => {
    await Promise.all(sims.map((s) => s.kill()));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('answers status and ping with its motd, max-players and players online; a ping is no player', async () => {
    const answer = await status('127.0.0.1', port, { timeout: 5000, enableSRV: false });
    expect(answer.motd.clean).to.equal('Ping me');
    expect(answer.players).to.include({ max: 42, online: 0 });
    expect(answer.version.name).to.equal('Simcraft 1.21.4');
    expect(answer.roundTripLatency).to.be.a('number');
    expect(simcraft.lines.some((l) => / joined the game$/.test(l)), 'no player joined').to.equal(false);
  });

  it('fakeplayers <n> sets the online count the ping reports', async () => {
    await simcraft.command('fakeplayers 7', /Players online reported: 7/);
    expect((await status('127.0.0.1', port, { timeout: 5000, enableSRV: false })).players.online).to.equal(7);
  });

  it('through simproxy the network address answers with the routed server\'s status', async () => {
    const answer = await status('127.0.0.1', proxyPort, { timeout: 5000, enableSRV: false });
    expect(answer.motd.clean).to.equal('Ping me');
    expect(answer.players).to.include({ max: 42, online: 7 });
  });
});
