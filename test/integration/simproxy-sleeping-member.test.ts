import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mc from 'minecraft-protocol';
import { Sleeper } from '../../src/agent/sleeper/sleeper.js';
import type { SimproxyConfigSpec } from '../../src/shared/simproxy-config.js';
import { GameClient, login, statusPing, stringAt } from '../support/minecraft-client.js';
import { freePort, SimProcess, simSource } from '../support/sim-process.js';

const starting = { text: 'This server is starting: join again in a moment.' };
const lastStatus = { version: { name: 'Paper 1.21.4', protocol: 769 }, maxPlayers: 20, description: { text: 'Survival' } };

/**
 * A network's member that sleeps, behind simproxy, with real TCP and no Controller: the member's
 * port is the Agent's own sleeper, the proxy routes players to it as the Agent's config file says.
 * simproxy forwards bytes as they are, so the member's login disconnect reaches the player
 * unchanged: the player reads why and joins again, rather than seeing the proxy drop the connection.
 */
describe('simproxy in front of a sleeping member: the member\'s reason reaches the player', function () {
  this.timeout(30_000);
  let dir: string;
  let proxy: SimProcess;
  let proxyPort: number;
  let memberPort: number;
  let member: Sleeper;
  let wakes: string[];
  const clients: GameClient[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-simproxy-sleep-'));
    memberPort = await freePort();
    const config: SimproxyConfigSpec = {
      bind: '127.0.0.1', port: 0, lobbyServerId: 'survival',
      routes: [{ serverId: 'survival', name: 'survival', address: '127.0.0.1', port: memberPort }],
    };
    await writeFile(join(dir, 'simproxy.json'), JSON.stringify(config));
    proxy = SimProcess.start(simSource('simproxy'), [], dir);
    proxyPort = Number(/:(\d+)$/.exec(await proxy.waitForLine(/Done \(.*\)! Listening on /))![1]);
  });
  after(async () => {
    await proxy.kill();
    await rm(dir, { recursive: true, force: true });
  });

  // Each test finds the member freshly asleep on the same port, as the Agent opens it again after each sleep.
  beforeEach(async () => {
    wakes = [];
    member = await Sleeper.listen({ port: memberPort, host: '127.0.0.1', status: lastStatus, onWake: (player) => wakes.push(player) });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await member.close();
  });

  it('a login through the proxy gets the member\'s login disconnect with its reason, and wakes the member with the player\'s name', async () => {
    const first = await login(proxyPort, 'Alex');
    clients.push(first.client);
    expect(first.answer?.id, 'a login Disconnect').to.equal(0x00);
    expect(JSON.parse(stringAt(first.answer!))).to.deep.equal(starting);
    await first.client.closed;
    expect(wakes).to.deep.equal(['Alex']);

    const second = await login(proxyPort, 'Steve');
    clients.push(second.client);
    expect(second.answer?.id, 'the second login\'s Disconnect').to.equal(0x00);
    expect(JSON.parse(stringAt(second.answer!))).to.deep.equal(starting);
    await second.client.closed;
    expect(wakes, 'the member wakes once').to.deep.equal(['Alex']);
  });

  it('the proxy\'s status keeps answering while the member sleeps (the member\'s Sleeping status, 0 players), and wakes nothing', async () => {
    for (let i = 0; i < 10; i++) {
      const { status, ponged } = await statusPing(proxyPort);
      expect(status).to.deep.equal({
        version: lastStatus.version,
        players: { online: 0, max: 20 },
        description: { text: 'Sleeping: join to wake. ', extra: [lastStatus.description] },
      });
      expect(ponged).to.equal(true);
    }
    expect(wakes).to.deep.equal([]);
  });

  it('a real client library (minecraft-protocol, 1.21.4) logging in through the proxy is told the reason', async () => {
    const client = mc.createClient({ host: '127.0.0.1', port: proxyPort, username: 'Notch', version: '1.21.4', auth: 'offline' });
    try {
      const reason = await new Promise<string>((resolve, reject) => {
        client.once('disconnect', (packet: { reason: string }) => resolve(packet.reason));
        client.once('login', () => reject(new Error('logged in to a sleeping member')));
        client.once('end', (why: string) => reject(new Error(`the connection ended without a disconnect: ${why}`)));
        client.once('error', reject);
      });
      expect(JSON.parse(reason)).to.deep.equal(starting);
    } finally {
      client.end();
    }
    expect(wakes).to.deep.equal(['Notch']);
  });
});
