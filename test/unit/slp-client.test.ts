import { expect } from 'chai';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pingPlayers, playersOfStatus } from '../../src/agent/status/slp-client.js';
import { packet, writeString } from '../../src/shared/minecraft-packets.js';
import { ServerSession } from '../../src/shared/minecraft-server-session.js';
import { statusJson } from '../../src/sim/minecraft-answers.js';

/** A TCP server on a free loopback port whose every connection `onSocket` handles. */
async function listen(onSocket: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const statusPacket = (json: string) => packet(0x00, writeString(json));

describe('Server List Ping client (the Agent asking a game for its players)', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
  });
  const serve = async (onSocket: (socket: Socket) => void) => {
    const s = await listen(onSocket);
    s.server.on('connection', (socket) => sockets.push(socket.on('error', () => undefined)));
    servers.push(s.server);
    return s.port;
  };

  it('reads the players from a status answer, then pings and gets the pong', async () => {
    let ponged = false;
    const port = await serve((socket) => {
      const status = () => statusJson({ version: 'Simcraft 1.21.4', protocol: 769, max: 20, online: 3, motd: 'hello' });
      const session = new ServerSession({ status, login: () => ({ packets: [], stay: false }) });
      socket.on('data', (chunk) => {
        for (const out of session.receive(chunk)) socket.write(out);
        if (session.state === 'ended') {
          ponged = true;
          socket.end();
        }
      });
    });
    expect(await pingPlayers('127.0.0.1', port)).to.deep.equal({
      online: 3, max: 20, game: { version: { name: 'Simcraft 1.21.4', protocol: 769 }, description: { text: 'hello' } },
    }, 'its version and description come too: what its port says while it sleeps');
    expect(ponged, 'the exchange went on to the ping').to.equal(true);
  });

  it('answers a status split over many small writes', async () => {
    const port = await serve((socket) => {
      socket.once('data', () => {
        const bytes = statusPacket(JSON.stringify({ players: { online: 0, max: 100 }, description: 'x'.repeat(3000) }));
        for (let i = 0; i < bytes.length; i += 100) socket.write(bytes.subarray(i, i + 100));
      });
    });
    expect(await pingPlayers('127.0.0.1', port)).to.deep.equal({ online: 0, max: 100 });
  });

  it('gives up at its deadline on a server that never answers, and on a closed port', async () => {
    const port = await serve(() => undefined);
    const started = Date.now();
    expect(await pingPlayers('127.0.0.1', port, { deadlineMs: 300, maxBytes: 65_536 })).to.equal(null);
    expect(Date.now() - started).to.be.within(250, 2_000);
    const closed = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    expect(await pingPlayers('127.0.0.1', closed, { deadlineMs: 2_000, maxBytes: 65_536 })).to.equal(null);
  });

  it('stops reading past its cap: an answer longer than 64 KiB is no answer', async () => {
    let sent = 0;
    const port = await serve((socket) => {
      socket.once('data', () => {
        const huge = statusPacket(JSON.stringify({ players: { online: 1, max: 2 }, favicon: 'A'.repeat(200_000) }));
        sent = huge.length;
        socket.write(huge);
      });
    });
    expect(await pingPlayers('127.0.0.1', port, { deadlineMs: 2_000, maxBytes: 64 * 1024 })).to.equal(null);
    expect(sent).to.be.greaterThan(64 * 1024);
  });

  it('takes a plain greeting or a malformed packet for no answer', async () => {
    const greeting = await serve((socket) => socket.end('Simcraft 1.21.4 says hello\n'));
    expect(await pingPlayers('127.0.0.1', greeting)).to.equal(null);
    const wrongId = await serve((socket) => socket.once('data', () => socket.write(packet(0x05, Buffer.from('zz')))));
    expect(await pingPlayers('127.0.0.1', wrongId)).to.equal(null);
  });

  it('reads only counts that make sense from the status JSON', () => {
    expect(playersOfStatus('{"players":{"online":7,"max":500,"sample":[]}}')).to.deep.equal({ online: 7, max: 500 });
    expect(playersOfStatus('{"players":{"online":-1,"max":5}}')).to.equal(null);
    expect(playersOfStatus('{"players":{"online":"3","max":5}}')).to.equal(null);
    expect(playersOfStatus('{"version":{}}')).to.equal(null);
    expect(playersOfStatus('null')).to.equal(null);
    expect(playersOfStatus('not json')).to.equal(null);
  });
});
