import { expect } from 'chai';
import mc from 'minecraft-protocol';
import { Sleeper } from '../../src/agent/sleeper/sleeper.js';

/**
 * The sleeper as a real Minecraft client library from the npm registry sees it (minecraft-protocol,
 * the one mineflayer bots use): its server list ping shows the sleeping description and nobody
 * online, and its login, of a current and of an old version, is refused with the reason.
 */
describe('The sleeper answers a real Minecraft client library (minecraft-protocol)', function () {
  this.timeout(30_000);
  let sleeper: Sleeper;
  let port: number;
  const wakes: string[] = [];

  before(async () => {
    const status = { version: { name: 'Paper 1.21.4', protocol: 769 }, maxPlayers: 20, description: { text: 'Our world' } };
    sleeper = await Sleeper.listen({ port: 0, host: '127.0.0.1', status, onWake: (player) => wakes.push(player) });
    port = sleeper.address().port;
  });
  after(() => sleeper.close());

  for (const version of ['1.21.4', '1.8.8']) {
    it(`a ${version} client's status shows the Sleeping description and 0 players, and wakes nothing`, async () => {
      const answer = (await mc.ping({ host: '127.0.0.1', port, version })) as mc.NewPingResult;
      expect(answer.players).to.include({ online: 0, max: 20 });
      expect(answer.version).to.deep.equal({ name: 'Paper 1.21.4', protocol: 769 });
      expect(answer.description).to.deep.equal({ text: 'Sleeping: join to wake. ', extra: [{ text: 'Our world' }] });
      expect(wakes).to.deep.equal([]);
    });
  }

  for (const [version, username] of [['1.21.4', 'Notch'], ['1.8.8', 'Herobrine']]) {
    it(`a ${version} client's login is refused with the reason that the server starts`, async () => {
      const client = mc.createClient({ host: '127.0.0.1', port, username, version, auth: 'offline' });
      try {
        const reason = await new Promise<string>((resolve, reject) => {
          client.once('disconnect', (packet: { reason: string }) => resolve(packet.reason));
          client.once('login', () => reject(new Error('logged in to a sleeping server')));
          client.once('error', reject);
        });
        expect(JSON.parse(reason)).to.deep.equal({ text: 'This server is starting: join again in a moment.' });
      } finally {
        client.end();
      }
      expect(wakes, 'the first login wakes the server, later ones find it waking').to.deep.equal(['Notch']);
    });
  }
});
