import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { defaultGamePorts } from '../../src/shared/game-ports.js';
import type { Node } from '../support/api-types.js';
import { GiB, startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';

/**
 * Listens on `port` with a plain TCP server, as another program would. When some other program
 * holds it already, that is the situation under test just the same: there is nothing to close.
 */
async function occupy(port: number): Promise<Server | undefined> {
  const server = createServer((socket) => socket.destroy());
  server.listen(port, '0.0.0.0');
  try {
    await once(server, 'listening');
    return server;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
    throw e;
  }
}

describe('game ports: a Node offers its own range (cairn-agent --game-ports)', function () {
  this.timeout(60_000);
  let f: Fleet;
  let held: (Server | undefined)[] = [];

  before(async () => {
    held = await Promise.all([...new Set([25565, defaultGamePorts.first])].map(occupy));
    f = await startFleet();
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    await Promise.all(held.filter((s) => s !== undefined).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('the Node shows the range its Agent offers', async () => {
    const node = await f.admin.get<Node>(`/nodes/${f.nodeId}`);
    expect(node.body.status.gamePorts).to.deep.equal(f.gamePorts);
    expect(f.gamePorts.first).to.be.above(defaultGamePorts.last);
  });

  it('while another program listens on 25565, a server is placed on a port of the range and reaches RUNNING there', async () => {
    const created = await f.admin.post('/servers', {
      name: 'ported', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB },
    });
    expect(created.status, created.text).to.equal(201);
    const { id, gamePort } = created.body as { id: string; gamePort: number };
    expect(gamePort).to.equal(f.gamePorts.first);
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING');
    expect(running.gamePort).to.equal(gamePort);
    expect(await tcpAccepts(gamePort)).to.equal(true);
  });
});
