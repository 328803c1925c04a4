import { expect } from 'chai';
import { buildPluginJar } from '../../src/controller/adapters/plugins/plugin-jar.js';
import type { Node, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';
import { askConsole } from '../support/game-console.js';
import { waitFor } from '../support/wait-for.js';

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

  const ask = (id: string, command: string, answer: RegExp) => askConsole(f, id, command, answer, 30_000);

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

  describe('accounting (this Node\'s filesystem has no project quotas for it)', () => {
    const limit = 64 * MiB;
    const put = (id: string, path: string, bytes: number) =>
      f.admin.put<{ code: string; detail: string }>(`/servers/${id}/files/content?path=${path}`, undefined, { rawBody: Buffer.alloc(bytes, 0x5a), contentType: 'application/octet-stream' });

    it('the Node says it holds disk limits by accounting', async () => {
      const node = await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.isolation, { what: 'the Node\'s isolation' });
      expect(node.disk).to.equal('accounting');
    });

    it('refuses uploads and plugin installs past resources.diskBytes (507 insufficient_storage) and shows DISK_QUOTA_EXCEEDED while past it', async () => {
      const server = await create('disk-accounting', { cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: limit });
      const measured = await waitForServer(f.admin, server.id, (s) => s.status.usage.diskBytes > 0, 'the installed files measured', usageWrittenWithinMs);
      const room = limit - measured.status.usage.diskBytes;
      expect(room, 'the installed files leave room for the test').to.be.above(16 * MiB);

      const fits = await put(server.id, 'fits.bin', room - 8 * MiB);
      expect(fits.status, fits.text).to.equal(204);
      const refused = await put(server.id, 'refused.bin', 12 * MiB);
      expect(refused.status, refused.text).to.equal(507);
      expect(refused.body.code).to.equal('insufficient_storage');
      expect(refused.body.detail).to.include('resources.diskBytes');
      const listed = await f.admin.get<{ items: { name: string }[] }>(`/servers/${server.id}/files?path=.`);
      expect(listed.body.items.map((e) => e.name)).to.not.include('refused.bin');

      // The game takes the files past the limit: the next walk tells (a running server's tree is walked every status interval).
      await start(server.id);
      expect(await ask(server.id, 'fill 16 by-the-game.bin', /fill by-the-game\.bin: /)).to.match(/: ok 16 MiB$/);
      const over = await waitForServer(f.admin, server.id, (s) => s.status.conditions.some((c) => c.reason === 'DISK_QUOTA_EXCEEDED'), 'DISK_QUOTA_EXCEEDED', 15_000);
      const condition = over.status.conditions.find((c) => c.reason === 'DISK_QUOTA_EXCEEDED')!;
      expect(condition.message).to.include(`resources.diskBytes = ${limit}`).and.match(/hold \d+\.\d MiB/);

      const jar = await buildPluginJar({ name: 'Greeter', version: '1.0' });
      const plugin = await f.admin.post<{ code: string }>(`/servers/${server.id}/plugins/upload?fileName=greeter.jar`, undefined, { rawBody: jar });
      expect(plugin.status, plugin.text).to.equal(507);
      expect(plugin.body.code).to.equal('insufficient_storage');

      const raised = await f.admin.patch(`/servers/${server.id}`, { resources: { cpuMillis: 500, memoryBytes: 256 * MiB, diskBytes: 4 * limit } });
      expect(raised.status, raised.text).to.equal(200);
      await waitForServer(f.admin, server.id, (s) => !s.status.conditions.some((c) => c.reason === 'DISK_QUOTA_EXCEEDED'), 'DISK_QUOTA_EXCEEDED to clear');
      expect((await put(server.id, 'now-fits.bin', 12 * MiB)).status).to.equal(204);
    });
  });
});
