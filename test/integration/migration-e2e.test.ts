import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPluginJar } from '../../src/controller/adapters/plugins/plugin-jar.js';
import { AgentPool, type AgentProcess } from '../support/agent-process.js';
import { ControllerProcess, setUpAdminOf } from '../support/controller-process.js';
import { EventStreamReader } from '../support/event-stream.js';
import { GiB, killGames, startFleet, tcpAccepts, waitForServer, type ExtraNode, type Fleet } from '../support/fleet.js';
import type { DrainStarted, EnrollmentIssued, Node, PluginInstallation, PluginInstallationPage, ServerDetail, ServerPage, ServerWatchEvent, Team } from '../support/api-types.js';
import { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { writeWorld } from '../support/world-files.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 1000, memoryBytes: GiB };
const MiB = 1024 * 1024;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const exists = (path: string) => access(path).then(() => true, () => false);
const isRunning = (s: ServerDetail) => s.phase === 'READY' && s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';

describe('migration end to end: real Agents, real simcraft', function () {
  this.timeout(120_000);
  let f: Fleet;
  let second: ExtraNode;
  const homeOn = (agentDir: string, id: string) => join(agentDir, 'servers', id);
  const create = async (name: string) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: simcraft, resources: small, nodeId: f.nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    return res.body;
  };
  const start = async (id: string) => {
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    return waitForServer(f.admin, id, isRunning, 'RUNNING', 30_000);
  };

  before(async () => {
    f = await startFleet({
      nodeTimings: { heartbeatIntervalMs: 500, degradedAfterMs: 2_000, unreachableAfterMs: 4_000 },
      migrationTimings: { stopMs: 20_000, startMs: 30_000, removeMs: 20_000 },
    });
    second = await f.addNode('node-2');
  });
  // Undefined when before() failed first: its own error is the one to read.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  after(async () => f?.dispose());

  it('moves a RUNNING server with a world file and an uploaded plugin: intact and RUNNING on the target, gone from the source', async () => {
    const server = await create('traveller');
    const worldFile = randomBytes(3 * MiB).toString('hex');
    expect((await f.admin.put(`/servers/${server.id}/files/content?path=notes.txt`, undefined, { rawBody: worldFile })).status).to.equal(204);
    const jar = await buildPluginJar({ name: 'Greeter', version: '1.0' });
    const plugin = await f.admin.post<PluginInstallation>(`/servers/${server.id}/plugins/upload?fileName=greeter.jar`, undefined, { rawBody: jar });
    expect(plugin.status, plugin.text).to.equal(201);
    const before = await start(server.id);

    const res = await f.admin.post<ServerDetail>(`/servers/${server.id}/migrate`, { nodeId: second.nodeId });
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ phase: 'MIGRATING' });
    const moved = await waitForServer(f.admin, server.id, (s) => isRunning(s) && s.nodeId === second.nodeId, 'RUNNING on node-2', 60_000);
    expect(moved.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    expect(moved.gamePort).to.not.equal(before.gamePort);
    expect(await tcpAccepts(moved.gamePort!)).to.equal(true);

    const read = await f.admin.get(`/servers/${server.id}/files/content?path=notes.txt`);
    expect(read.status).to.equal(200);
    expect(read.text).to.equal(worldFile);
    const pluginsDir = join(homeOn(second.agentDir, server.id), 'root', 'plugins');
    const jarHashes = await Promise.all((await readdir(pluginsDir)).map(async (name) => sha256(await readFile(join(pluginsDir, name)))));
    expect(jarHashes).to.include(sha256(jar));
    expect((await f.admin.get<PluginInstallationPage>(`/servers/${server.id}/plugins`)).body.items.map((i) => i.pluginId)).to.deep.equal([plugin.body.pluginId]);
    await waitFor(async () => !(await exists(homeOn(f.agentDir, server.id))), { timeoutMs: 20_000, what: 'the source to remove its copy' });
    expect(await tcpAccepts(before.gamePort!)).to.equal(false);
  });

  it('rolls back when the target Agent freezes (SIGSTOP) midway: running again on the source, MIGRATION_FAILED shown', async () => {
    const server = await create('frozen-target');
    await writeWorld(join(homeOn(f.agentDir, server.id), 'root'), 192 * MiB);
    await start(server.id);
    // The watch delivers every change as it is stored: polling could miss the short time between
    // the source's stop and the switch on an idle machine, and the migration would then succeed.
    const watch = await EventStreamReader.open<ServerWatchEvent>(f.admin, '/servers/watch');
    try {
      await watch.next((e) => e.event === 'synced', 'the watch snapshot');
      expect((await f.admin.post(`/servers/${server.id}/migrate`, { nodeId: second.nodeId })).status).to.equal(202);
      await watch.next((e) => e.event === 'server' && e.data.id === server.id && e.data.phase === 'MIGRATING' && e.data.runtimeState !== undefined && e.data.runtimeState !== 'RUNNING', 'the server held on its source', 60_000);
    } finally {
      watch.close();
    }
    second.agent.child.kill('SIGSTOP');
    try {
      const back = await waitForServer(f.admin, server.id, (s) => s.phase === 'READY', 'the rollback', 30_000);
      expect(back.nodeId).to.equal(f.nodeId);
      expect(back.conditions.find((c) => c.reason === 'MIGRATION_FAILED')?.message).to.match(/node-2/).and.match(/unreachable|in time/);
      const running = await waitForServer(f.admin, server.id, isRunning, 'RUNNING on the source again', 30_000);
      expect(await tcpAccepts(running.gamePort!)).to.equal(true);
    } finally {
      second.agent.child.kill('SIGCONT');
    }
    expect(await exists(homeOn(second.agentDir, server.id))).to.equal(false);
    await waitFor(async () => (await f.admin.get<Node>(`/nodes/${second.nodeId}`)).body.acceptsPlacements, { timeoutMs: 20_000, what: 'node-2 back' });
  });

  it('drain moves every server off the Node and disables it', async () => {
    const extra = await create('drained');
    await start(extra.id);
    const res = await f.admin.post<DrainStarted>(`/nodes/${f.nodeId}/drain`);
    expect(res.status, res.text).to.equal(202);
    expect(res.body.node.adminState).to.equal('DISABLED');
    expect(res.body.serverIds).to.include(extra.id);
    await waitFor(async () => (await f.admin.get<ServerPage>(`/servers?nodeId=${f.nodeId}`)).body.items.length === 0, { timeoutMs: 90_000, intervalMs: 200, what: 'node-1 empty' });
    for (const id of res.body.serverIds) {
      const moved = await waitForServer(f.admin, id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY on node-2', 30_000);
      expect(moved.nodeId).to.equal(second.nodeId);
      await waitFor(async () => !(await exists(homeOn(f.agentDir, id))), { timeoutMs: 20_000, what: 'node-1 to remove its copy' });
    }
    expect((await f.admin.get<ServerDetail>(`/servers/${extra.id}`)).body.status.runtimeState).to.equal('RUNNING');
    expect((await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body).to.include({ adminState: 'DISABLED' });
  });
});

describe('migration and a Controller killed (SIGKILL) mid-way: real processes', function () {
  this.timeout(120_000);
  const pool = new AgentPool();
  const dirs: string[] = [];
  let controller: ControllerProcess | undefined;
  let admin: ApiClient;

  const tempDir = async (prefix: string) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  const enrollAgent = async (grpcPort: number, name: string): Promise<{ nodeId: string; dir: string; agent: AgentProcess }> => {
    const created = await admin.post<EnrollmentIssued>('/nodes', { name });
    const dir = await tempDir('cairn-agent-');
    const agent = await pool.start({
      grpcPort, dataDir: dir, enrollmentToken: created.body.enrollmentToken,
      extra: ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--bind-address', '127.0.0.1'],
    });
    await waitFor(async () => (await admin.get<Node>(`/nodes/${created.body.node.id}`)).body.acceptsPlacements, { timeoutMs: 20_000, what: `${name} HEALTHY` });
    return { nodeId: created.body.node.id, dir, agent };
  };

  after(async () => {
    await pool.killAll();
    await controller?.kill();
    for (const dir of dirs) {
      await killGames(dir);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('ends READY on exactly one Node, never MIGRATING, after a restart', async () => {
    const dataDir = await tempDir('cairn-test-');
    const first = await ControllerProcess.start(dataDir);
    controller = first;
    const session = await setUpAdminOf(first, dataDir);
    const { cookie } = session;
    admin = session.admin;
    const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    const one = await enrollAgent(first.grpcPort, 'node-1');
    const two = await enrollAgent(first.grpcPort, 'node-2');

    const created = await admin.post<ServerDetail>('/servers', { name: 'survivor', teamId, software: simcraft, resources: small, nodeId: one.nodeId });
    const id = created.body.id;
    await waitForServer(admin, id, (s) => s.phase === 'READY', 'READY');
    await writeWorld(join(one.dir, 'servers', id, 'root'), 256 * MiB);
    await admin.post(`/servers/${id}/start`);
    await waitForServer(admin, id, isRunning, 'RUNNING', 30_000);

    expect((await admin.post(`/servers/${id}/migrate`, { nodeId: two.nodeId })).status).to.equal(202);
    await waitForServer(admin, id, (s) => s.workflow?.step === 'copying', 'copying', 30_000);
    await first.kill('SIGKILL');
    const restarted = await ControllerProcess.start(dataDir, first.grpcPort);
    controller = restarted;
    admin = restarted.api.withCookie(cookie);

    const settled = await waitForServer(admin, id, (s) => s.phase !== 'MIGRATING', 'the migration to end', 30_000);
    expect(settled.phase).to.equal('READY');
    const running = await waitForServer(admin, id, isRunning, 'RUNNING after the restart', 60_000);
    const on = running.nodeId === one.nodeId ? one : two;
    const other = on === one ? two : one;
    expect(running.nodeId).to.equal(one.nodeId, 'a migration killed while copying is rolled back');
    expect(running.conditions.find((c) => c.reason === 'MIGRATION_FAILED')?.message).to.include('restarted');
    expect(await tcpAccepts(running.gamePort!)).to.equal(true);
    expect(await exists(join(on.dir, 'servers', id))).to.equal(true);
    expect(await exists(join(other.dir, 'servers', id))).to.equal(false);
    expect((await admin.get<Node>(`/nodes/${two.nodeId}`)).body.reserved).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
    expect((await admin.get<ServerDetail>(`/servers/${id}`)).body.phase).to.equal('READY');
  });
});
