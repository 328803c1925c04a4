import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import type { AuditEventPage, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

/** Another program on the host: a bare TCP listener on the address the test Agents bind games to. */
async function foreignListener(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  server.listen({ port, host: '127.0.0.1', exclusive: true });
  await once(server, 'listening');
  return server;
}

const closeListener = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

async function createStarted(f: Fleet, name: string, inNetwork = false): Promise<ServerDetail> {
  const created = await f.admin.post<ServerDetail>('/servers', {
    name, teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 250, memoryBytes: GiB }, inNetwork,
  });
  expect(created.status, created.text).to.equal(201);
  await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY', 'READY');
  const started = await f.admin.post<ServerDetail>(`/servers/${created.body.id}/start`);
  expect(started.status, started.text).to.equal(202);
  return started.body;
}

const portInUse = (s: ServerDetail) => s.conditions.find((c) => c.reason === 'PORT_IN_USE');

/** The server's details over `ms`, polled: what a loop would show as changes. */
async function watchFor(client: ApiClient, serverId: string, ms: number): Promise<ServerDetail[]> {
  const seen: ServerDetail[] = [];
  const until = Date.now() + ms;
  await waitFor(async () => {
    seen.push((await client.get<ServerDetail>(`/servers/${serverId}`)).body);
    return Date.now() >= until;
  }, { timeoutMs: ms + 5000, intervalMs: 200, what: `watching server ${serverId}` });
  return seen;
}

describe('game ports held by another program (PORT_IN_USE)', function () {
  this.timeout(90_000);
  const foreign: Server[] = [];
  let f: Fleet | undefined;

  afterEach(async () => {
    await Promise.all(foreign.splice(0).map(closeListener));
    await f?.dispose();
    f = undefined;
  });

  it('moves a server off a port another program holds to the next free port of the range, where it runs and routes follow', async () => {
    f = await startFleet();
    const first = f.gamePorts.first;
    foreign.push(await foreignListener(first));
    const started = await createStarted(f, 'squatted', true);
    expect(started.gamePort).to.equal(first);

    const running = await waitForServer(f.admin, started.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING on a free port');
    expect(running.gamePort).to.equal(first + 1);
    expect(running.ports).to.deep.equal([{ name: 'game', protocol: 'TCP', hostPort: first + 1 }]);
    expect(running.generation, 'the move is a placement change: one new generation').to.equal(started.generation + 1);
    expect(running.conditions.map((c) => c.reason)).to.not.include('PORT_IN_USE');
    expect(running.status.lastCrash, 'never started on the held port, so never crashed').to.equal(undefined);
    expect(await tcpAccepts(first + 1)).to.equal(true);

    const audit = await f.admin.get<AuditEventPage>(`/audit-events?action=server.port.move&targetId=${started.id}`);
    expect(audit.body.items).to.have.length(1);
    expect(audit.body.items[0]).to.deep.include({ actorKind: 'SYSTEM', outcome: 'SUCCESS' });
    expect(audit.body.items[0].details).to.deep.include({ fromPort: first, toPort: first + 1, nodeId: f.nodeId, reason: 'PORT_IN_USE' });

    const routes = await f.admin.get<{ items: { serverId: string; port: number }[] }>('/network/routes');
    expect(routes.body.items.find((r) => r.serverId === started.id)?.port).to.equal(first + 1);

    // The held port stays avoided: the next server goes past it too.
    const next = await f.admin.post<ServerDetail>('/servers', {
      name: 'after', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 250, memoryBytes: GiB },
    });
    expect(next.body.gamePort).to.equal(first + 2);
  });

  it('with every port of the range held, the server stays stopped with PORT_IN_USE naming the range, never crash-loops, and starts once its port is freed', async () => {
    const block = await privateGamePorts();
    const range = { first: block.first, last: block.first + 1 };
    f = await startFleet({ gamePorts: range });
    foreign.push(await foreignListener(range.first), await foreignListener(range.last));
    const started = await createStarted(f, 'cornered');
    expect(started.gamePort).to.equal(range.first);

    const stuck = await waitForServer(f.admin, started.id, (s) => portInUse(s)?.message.includes('No free port is left') === true, 'PORT_IN_USE with no port left');
    const condition = portInUse(stuck)!;
    expect(condition.source).to.equal('AGENT');
    expect(condition.message).to.include(`Port ${range.last} is held by another program`);
    expect(condition.message).to.include(`No free port is left in the range ${range.first}-${range.last}`);
    expect(stuck.gamePort).to.equal(range.last);
    expect(stuck.generation).to.equal(started.generation + 1);

    // No loop: neither crashes nor moves while both ports stay held.
    const seen = await watchFor(f.admin, started.id, 3000);
    for (const s of seen) {
      expect(s.generation).to.equal(stuck.generation);
      expect(s.gamePort).to.equal(range.last);
      expect(s.status.runtimeState).to.equal('STOPPED');
      expect(s.convergence).to.equal('DISCREPANCY');
      expect(s.status.lastCrash).to.equal(undefined);
      expect(s.conditions.map((c) => c.reason)).to.not.include('CRASH_LOOP');
      expect(portInUse(s)).to.not.equal(undefined);
    }
    const moves = await f.admin.get<AuditEventPage>(`/audit-events?action=server.port.move&targetId=${started.id}`);
    expect(moves.body.items.map((e) => e.details)).to.deep.equal([{ nodeId: f.nodeId, fromPort: range.first, toPort: range.last, reason: 'PORT_IN_USE' }]);

    // The other program goes: the Agent's next check finds the port free and the game starts there.
    await closeListener(foreign.pop()!);
    const running = await waitForServer(f.admin, started.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING once freed', 30_000);
    expect(running.gamePort).to.equal(range.last);
    expect(portInUse(running)).to.equal(undefined);
    expect(await tcpAccepts(range.last)).to.equal(true);
  });
});
