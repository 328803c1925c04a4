import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 1000, memoryBytes: GiB };

describe('servers end to end: real Agent, real simcraft processes', function () {
  this.timeout(90_000);
  let f: Fleet;
  const rootOf = (id: string) => join(f.agentDir, 'servers', id, 'root');
  const gamePid = async (id: string) =>
    (JSON.parse(await readFile(join(f.agentDir, 'servers', id, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;
  const create = async (body: Record<string, unknown> = {}) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name: 'survival', teamId: f.teamId, software: simcraft, resources: small, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const running = (s: ServerDetail) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';

  before(async () => {
    f = await startFleet();
  });
  after(async () => f.dispose());

  let id: string;
  let port: number;

  it('creates a server PROVISIONING with a game port; it becomes READY once the Node installed it', async () => {
    const server = await create();
    expect(server).to.include({ phase: 'PROVISIONING', desiredState: 'STOPPED', generation: 1, nodeId: f.nodeId, kind: 'GAME_SERVER' });
    expect(server.ports).to.deep.equal([{ name: 'game', protocol: 'TCP', hostPort: server.gamePort }]);
    expect(server.gamePort).to.be.a('number');
    id = server.id;
    port = server.gamePort!;
    expectProblem(await f.admin.post(`/servers/${id}/start`), 409, 'phase_busy');
    const ready = await waitForServer(f.admin, id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY');
    expect(ready.status.runtimeState).to.equal('STOPPED');
  });

  it('starts: 202 with a new generation, then RUNNING and CONVERGED with the game port accepting TCP', async () => {
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/start`);
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ desiredState: 'RUNNING', generation: 2 });
    const server = await waitForServer(f.admin, id, running, 'RUNNING');
    expect(server.observedGeneration).to.equal(2);
    expect(await tcpAccepts(port)).to.equal(true);
    const properties = await readFile(join(rootOf(id), 'server.properties'), 'utf8');
    expect(properties).to.match(new RegExp(`^server-port=${port}$`, 'm'));
  });

  it('restarts: the process is replaced and the server converges again', async () => {
    const before = await gamePid(id);
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/restart`);
    expect(res.status).to.equal(202);
    expect(res.body.generation).to.equal(3);
    await waitFor(async () => (await gamePid(id)) !== before, { timeoutMs: 20_000, what: 'a new game process' });
    await waitForServer(f.admin, id, (s) => running(s) && s.observedGeneration === 3, 'RUNNING after restart');
  });

  it('PATCH resources on a running server restarts it gracefully and the new generation is observed', async () => {
    const before = await gamePid(id);
    const res = await f.admin.patch<ServerDetail>(`/servers/${id}`, { resources: { cpuMillis: 2000, memoryBytes: 2 * GiB } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.generation).to.equal(4);
    await waitForServer(f.admin, id, (s) => running(s) && s.observedGeneration === 4, 'RUNNING with the new resources');
    expect(await gamePid(id)).to.not.equal(before);
    const node = await f.admin.get<Node>(`/nodes/${f.nodeId}`);
    expect(node.body.reserved).to.deep.equal({ cpuMillis: 2000, memoryBytes: 2 * GiB });
  });

  it('refuses a resize that does not fit the Node (current reservation excluded)', async () => {
    expectProblem(await f.admin.patch(`/servers/${id}`, { resources: { cpuMillis: 9000, memoryBytes: GiB } }), 409, 'insufficient_capacity');
    const fits = await f.admin.patch(`/servers/${id}`, { resources: { cpuMillis: 7000, memoryBytes: 2 * GiB } });
    expect(fits.status, fits.text).to.equal(200);
    await waitForServer(f.admin, id, (s) => running(s) && s.observedGeneration === 5, 'RUNNING after the second resize');
  });

  it('stops: STOPPED and CONVERGED, the port closed', async () => {
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/stop`);
    expect(res.status).to.equal(202);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED' && s.convergence === 'CONVERGED', 'STOPPED');
    expect(await tcpAccepts(port)).to.equal(false);
  });

  it('a crash with maxRestarts 0 leaves the server CRASHED with convergence DISCREPANCY', async () => {
    const server = await create({ name: 'fragile', resources: { cpuMillis: 100, memoryBytes: GiB / 4 }, restartPolicy: { maxRestarts: 0, windowSeconds: 60 } });
    await waitForServer(f.admin, server.id, (s) => s.phase === 'READY', 'READY');
    await writeFile(join(rootOf(server.id), 'server.properties'), 'simcraft-crash-after-ms=300\n');
    await f.admin.post(`/servers/${server.id}/start`);
    const crashed = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'CRASHED' && s.convergence === 'DISCREPANCY', 'CRASHED');
    expect(crashed.conditions).to.deep.equal([]);
  });

  it('a crash loop raises CRASH_LOOP; after acknowledging it and fixing the cause, the server starts again', async () => {
    const server = await create({ name: 'looping', resources: { cpuMillis: 100, memoryBytes: GiB / 4 }, restartPolicy: { maxRestarts: 2, windowSeconds: 60 } });
    await waitForServer(f.admin, server.id, (s) => s.phase === 'READY', 'READY');
    const properties = join(rootOf(server.id), 'server.properties');
    await writeFile(properties, 'simcraft-crash-after-ms=200\n');
    await f.admin.post(`/servers/${server.id}/start`);
    const looped = await waitForServer(f.admin, server.id, (s) => s.conditions.some((c) => c.reason === 'CRASH_LOOP'), 'CRASH_LOOP');
    expect(looped.convergence).to.equal('DISCREPANCY');
    expect(looped.conditionCount).to.equal(1);
    await writeFile(properties, (await readFile(properties, 'utf8')).replace(/^simcraft-crash-after-ms=.*$/m, ''));
    const ack = await f.admin.post<ServerDetail>(`/servers/${server.id}/conditions/CRASH_LOOP/acknowledge`);
    expect(ack.status, ack.text).to.equal(200);
    expect(ack.body.acknowledgedConditions).to.deep.equal([looped.conditions[0].id]);
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    const back = await waitForServer(f.admin, server.id, running, 'RUNNING after the acknowledgement');
    expect(back.conditions).to.deep.equal([]);
    await f.admin.post(`/servers/${server.id}/stop`);
  });

  it('the Agent killed: the game keeps running, the state is UNKNOWN; a new Agent adopts it and it converges again', async () => {
    await f.admin.post(`/servers/${id}/start`);
    await waitForServer(f.admin, id, running, 'RUNNING');
    const pid = await gamePid(id);
    await f.agent.kill('SIGKILL');
    await waitForServer(f.admin, id, (s) => s.convergence === 'UNKNOWN', 'UNKNOWN while the Node is unreachable', 70_000);
    expect(await tcpAccepts(port)).to.equal(true);
    await f.startAgent();
    await waitForServer(f.admin, id, running, 'CONVERGED again after adoption');
    expect(await gamePid(id)).to.equal(pid);
  });

  it('the Controller restarted: the Agent reconnects and the server is CONVERGED, the same process', async () => {
    const pid = await gamePid(id);
    f.t = await f.t.restart();
    const login = await f.t.api.post('/auth/login', { username: 'admin', password: 'correct-horse-battery' });
    f.admin = f.t.api.withCookie(/(__Host-cairn_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]);
    await waitForServer(f.admin, id, running, 'CONVERGED after the Controller restart');
    expect(await gamePid(id)).to.equal(pid);
  });

  it('deletes: 202 DELETING, then gone (404) and the reservation released', async () => {
    const before = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.reserved;
    const res = await f.admin.delete<ServerDetail>(`/servers/${id}`);
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ desiredState: 'DELETED', phase: 'DELETING' });
    await waitFor(async () => (await f.admin.get(`/servers/${id}`)).status === 404, { timeoutMs: 30_000, what: 'the server to be gone' });
    const after = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.reserved;
    expect(after.cpuMillis).to.equal(before.cpuMillis - 7000);
    expect(await tcpAccepts(port)).to.equal(false);
  });
});
