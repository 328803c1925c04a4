import { expect } from 'chai';
import type { ConsoleStreamEvent, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';
import { openSse } from '../support/sse.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const MiB = 2 ** 20;
/** The Controller writes a change of usage alone at most every 30 s (observed-memo.ts); then a walk and a report. */
const usageWrittenWithinMs = 45_000;

describe('disk limits: what a server\'s files hold (real Agent)', function () {
  this.timeout(180_000);
  let f: Fleet;
  const created: string[] = [];

  async function create(name: string, resources: Record<string, number> = { cpuMillis: 500, memoryBytes: 256 * MiB }): Promise<ServerDetail> {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: simcraft, resources, restartPolicy: { maxRestarts: 0, windowSeconds: 60 } });
    expect(res.status, res.text).to.equal(201);
    created.push(res.body.id);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', `${name} READY`);
  }

  async function start(id: string): Promise<void> {
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 60_000);
  }

  /** Types a command into the game and waits for the console line it answers with. */
  async function ask(id: string, command: string, answer: RegExp, timeoutMs = 30_000): Promise<string> {
    const stream = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${id}/console?tail=0`, { cookie: f.admin.auth.cookie! });
    expect(stream.status).to.equal(200);
    try {
      const sent = await f.admin.post(`/servers/${id}/console/commands`, { command });
      expect(sent.status, sent.text).to.equal(200);
      const line = await stream.next((e) => e.event === 'line' && answer.test((e.data as { text: string }).text), timeoutMs);
      return (line.data as { text: string }).text;
    } finally {
      stream.close();
    }
  }

  before(async () => {
    f = await startFleet({ agentArgs: ['--status-interval-ms', '1000'] });
  });
  after(async () => {
    await f.dispose();
    await removeGameCgroups(created);
  });

  it('status.usage.diskBytes grows with what the game writes, and is kept while the game is stopped', async () => {
    const server = await create('disk-usage');
    const installed = await waitForServer(f.admin, server.id, (s) => (s.status.usage.diskBytes) > 0, 'the installed files measured', usageWrittenWithinMs);
    const before = installed.status.usage.diskBytes;
    await start(server.id);
    expect(await ask(server.id, 'fill 24 big.bin', /fill big\.bin: /)).to.match(/: ok 24 MiB$/);
    const grown = await waitForServer(f.admin, server.id, (s) => (s.status.usage.diskBytes) >= before + 24 * MiB, 'usage.diskBytes to grow by 24 MiB', usageWrittenWithinMs);
    expect(grown.status.usage.diskBytes).to.be.below(before + 40 * MiB);
    expect((await f.admin.post(`/servers/${server.id}/stop`)).status).to.equal(202);
    const stopped = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 60_000);
    expect(stopped.status.usage.diskBytes).to.be.at.least(before + 24 * MiB);
  });

  it('resources.diskBytes: at least 64 MiB on create and PATCH (400 naming the field), shown in the detail, kept or dropped by PATCH', async () => {
    const small = await f.admin.post<{ code: string; detail: string }>('/servers', {
      name: 'too-small', teamId: f.teamId, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: 64 * MiB - 1 },
    });
    expect(small.status, small.text).to.equal(400);
    expect(small.body.code).to.equal('invalid_request');
    expect(small.body.detail).to.include('body.resources.diskBytes');
    const server = await create('disk-limit', { cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: 128 * MiB });
    expect(server.resources).to.deep.equal({ cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: 128 * MiB });
    const tooSmall = await f.admin.patch<{ detail: string }>(`/servers/${server.id}`, { resources: { cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: MiB } });
    expect(tooSmall.status, tooSmall.text).to.equal(400);
    expect(tooSmall.body.detail).to.include('body.resources.diskBytes');
    const raised = await f.admin.patch<ServerDetail>(`/servers/${server.id}`, { resources: { cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: 256 * MiB } });
    expect(raised.status, raised.text).to.equal(200);
    expect(raised.body.resources.diskBytes).to.equal(256 * MiB);
    // PATCH resources is the whole reservation: without diskBytes the server has no limit again.
    const dropped = await f.admin.patch<ServerDetail>(`/servers/${server.id}`, { resources: { cpuMillis: 500, memoryBytes: 256 * MiB } });
    expect(dropped.body.resources).to.deep.equal({ cpuMillis: 500, memoryBytes: 256 * MiB });
  });
});
