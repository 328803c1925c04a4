import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimproxyConfigSpec } from '../../src/shared/simproxy-config.js';
import { freePort, SimProcess, simSource } from '../support/sim-process.js';

/** A TCP server that answers every chunk with `<tag>:<chunk>`. */
async function echoServer(tag: string): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => {
    s.on('data', (d) => s.write(`${tag}:${d.toString()}`));
    s.on('error', () => s.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends one message through the proxy: the answer, or null when the proxy closes without one. */
async function exchange(port: number, message: string): Promise<string | null> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  await once(socket, 'connect');
  socket.write(message);
  return new Promise((resolve, reject) => {
    socket.once('data', (d: string) => {
      socket.destroy();
      resolve(d);
    });
    socket.once('end', () => resolve(null));
    socket.once('error', reject);
  });
}

describe('simproxy: the simulated network proxy', () => {
  let dir: string;
  let sim: SimProcess;
  let proxyPort: number;
  const echoes: Server[] = [];
  let a: { port: number };
  let b: { port: number };
  const route = (serverId: string, port: number) => ({ serverId, name: serverId, address: '127.0.0.1', port });

  /** As the Agent does: a temp file renamed over the config, so the proxy never reads half a file. */
  const writeConfig = async (config: SimproxyConfigSpec) => {
    await writeFile(join(dir, 'simproxy.json.tmp'), JSON.stringify(config));
    await rename(join(dir, 'simproxy.json.tmp'), join(dir, 'simproxy.json'));
  };
  const reconfigure = async (config: Omit<SimproxyConfigSpec, 'bind' | 'port'>) => {
    const from = sim.lines.length;
    await writeConfig({ bind: '127.0.0.1', port: 0, ...config });
    await sim.waitForLine(/Routes reloaded|Keeping the current routes/, 5000, from);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-simproxy-'));
    const echoA = await echoServer('A');
    const echoB = await echoServer('B');
    echoes.push(echoA.server, echoB.server);
    a = echoA;
    b = echoB;
    await writeConfig({ bind: '127.0.0.1', port: 0, routes: [route('a', a.port)] });
    sim = SimProcess.start(simSource('simproxy'), [], dir);
    const done = await sim.waitForLine(/Done \(.*\)! Listening on /);
    proxyPort = Number(/:(\d+)$/.exec(done)![1]);
  });

  after(async () => {
    await sim.kill();
    for (const s of echoes) s.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('forwards bytes both ways to the first route when no lobby is set', async () => {
    expect(await exchange(proxyPort, 'hello')).to.equal('A:hello');
    await sim.waitForLine(/has connected to a \(/);
  });

  it('sends new connections to the lobby after a route change, without a restart', async () => {
    await reconfigure({ routes: [route('a', a.port), route('b', b.port)], lobbyServerId: 'b' });
    expect(await exchange(proxyPort, 'again')).to.equal('B:again');
  });

  it('tries the routes in order: a route that refuses is passed over for the next', async () => {
    const dead = await freePort();
    await reconfigure({ routes: [route('dead', dead), route('a', a.port), route('b', b.port)] });
    expect(await exchange(proxyPort, 'fallback')).to.equal('A:fallback');
    await sim.waitForLine(/unable to connect to dead/);
    await reconfigure({ routes: [route('a', a.port), route('b', b.port)], lobbyServerId: 'b' });
  });

  it('keeps the last good routes when the file is broken', async () => {
    const from = sim.lines.length;
    await writeFile(join(dir, 'simproxy.json'), '{"port": ');
    await sim.waitForLine(/Keeping the current routes/, 5000, from);
    expect(await exchange(proxyPort, 'still')).to.equal('B:still');
  });

  it('closes connections when there is no route', async () => {
    await reconfigure({ routes: [] });
    expect(await exchange(proxyPort, 'anyone?')).to.equal(null);
    await sim.waitForLine(/no server to send the player to/);
  });

  it('re-reads a file rewritten in place, and exits 0 on end', async () => {
    const from = sim.lines.length;
    await writeFile(join(dir, 'simproxy.json'), JSON.stringify({ bind: '127.0.0.1', port: 0, routes: [route('a', a.port)] }));
    await sim.waitForLine(/Routes reloaded/, 5000, from);
    expect(await exchange(proxyPort, 'back')).to.equal('A:back');
    sim.send('end');
    expect(await sim.exited).to.equal(0);
  });
});
