import { expect } from 'chai';
import { defaultGamePorts } from '../../src/shared/game-ports.js';
import type { Node } from '../support/api-types.js';
import { GiB, startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';

describe('game ports: a Node offers its own range (cairn-agent --game-ports)', function () {
  this.timeout(60_000);
  let f: Fleet;

  before(async () => {
    f = await startFleet();
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  it('the Node shows the range its Agent offers', async () => {
    const node = await f.admin.get<Node>(`/nodes/${f.nodeId}`);
    expect(node.body.status.gamePorts).to.deep.equal(f.gamePorts);
    expect(f.gamePorts.first).to.be.above(defaultGamePorts.last);
  });

  it('places a server on the first port of the Node\'s own range, outside the default range, and it reaches RUNNING there', async () => {
    // The test binds nothing of the default range: another program on this machine may hold it.
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
