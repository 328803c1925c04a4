import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeFiles } from '../support/fake-files.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { AuditEventPage, DrainStarted, Node, RolePage, ServerDetail, ServerPage, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 1000, memoryBytes: GiB };
const world = { 'server.properties': 'motd=hello\n', 'world/level.dat': 'level', 'world/region/r.0.0.mca': 'x'.repeat(3 * 1024 * 1024 + 5), 'plugins/Greeter.jar': 'jar' };

/** A Node with a fake Agent that keeps files in memory. */
interface FakeNode {
  agent: FakeAgent;
  files: FakeFiles;
  nodeId: string;
}

describe('migration API: validation, permissions, steps, rollback and drain (fake Agents)', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let teamId: string;
  const nodes: Record<string, FakeNode> = {};

  const addNode = async (name: string, allocatable = { cpuMillis: 8000, memoryBytes: 8 * GiB }) => {
    const agent = await FakeAgent.connect(admin, t.controller.grpcPort, name, allocatable);
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: `${name} to accept placements` });
    nodes[name] = { agent, files: new FakeFiles(agent), nodeId: agent.nodeId };
    return nodes[name];
  };
  const create = async (on: FakeNode, name = 'survival') => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: on.nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', 'READY', 5_000);
    on.files.seed(res.body.id, world);
    return res.body;
  };
  const running = async (on: FakeNode, name?: string) => {
    const server = await create(on, name);
    expect((await admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    return waitForServer(admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING', 5_000);
  };
  const settled = (id: string) => waitForServer(admin, id, (s) => s.phase === 'READY', 'the migration to end', 10_000);
  const reserved = async (nodeId: string) => (await admin.get<Node>(`/nodes/${nodeId}`)).body.reserved;
  /** Deletes a server a test moved, so the room it took on its Node is free for the next tests. */
  const removed = async (id: string) => {
    expect((await admin.delete(`/servers/${id}`)).status).to.be.oneOf([202, 204]);
    await waitFor(async () => (await admin.get(`/servers/${id}`)).status === 404, { what: `server ${id} to be deleted` });
  };

  before(async () => {
    t = await startTestController({
      migrationTimings: { stopMs: 3_000, startMs: 3_000, removeMs: 3_000 },
      nodeTimings: { heartbeatIntervalMs: 200, degradedAfterMs: 1_000, unreachableAfterMs: 2_000 },
    });
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    for (const name of ['alpha', 'beta']) await addNode(name);
  });
  after(async () => {
    for (const n of Object.values(nodes)) n.agent.stop();
    await t.dispose();
  });

  describe('refusals', () => {
    let server: ServerDetail;
    before(async () => {
      server = await create(nodes.alpha, 'refused');
    });

    it('checks the body: nodeId required, a UUID, nothing else', async () => {
      expectProblem(await admin.post(`/servers/${server.id}/migrate`, {}), 400, 'invalid_request');
      expectProblem(await admin.post(`/servers/${server.id}/migrate`, { nodeId: 'beta' }), 400, 'invalid_request');
      expectProblem(await admin.post(`/servers/${server.id}/migrate`, { nodeId: nodes.beta.nodeId, force: true }), 400, 'invalid_request');
    });

    it('refuses the server\'s own Node (invalid_request) and an unknown Node', async () => {
      expectProblem(await admin.post(`/servers/${server.id}/migrate`, { nodeId: nodes.alpha.nodeId }), 400, 'invalid_request', 'already');
      expectProblem(await admin.post(`/servers/${server.id}/migrate`, { nodeId: '018f0000-0000-7000-8000-000000000000' }), 400, 'invalid_request', 'no Node');
    });

    it('refuses a target that does not accept placements or has no room (insufficient_capacity)', async () => {
      const tiny = await addNode('tiny', { cpuMillis: 500, memoryBytes: GiB });
      expectProblem(await admin.post(`/servers/${server.id}/migrate`, { nodeId: tiny.nodeId }), 409, 'insufficient_capacity');
      expect((await admin.post(`/nodes/${nodes.beta.nodeId}/disable`)).status).to.equal(200);
      try {
        expectProblem(await admin.post(`/servers/${server.id}/migrate`, { nodeId: nodes.beta.nodeId }), 409, 'insufficient_capacity');
      } finally {
        expect((await admin.post(`/nodes/${nodes.beta.nodeId}/enable`)).status).to.equal(200);
      }
      expect((await admin.get<ServerDetail>(`/servers/${server.id}`)).body).to.include({ phase: 'READY', nodeId: nodes.alpha.nodeId });
    });

    it('refuses a server that is not READY (phase_busy)', async () => {
      nodes.alpha.agent.hold();
      try {
        const res = await admin.post<ServerDetail>('/servers', { name: 'young', teamId, software: simcraft, resources: small, nodeId: nodes.alpha.nodeId });
        expect(res.body.phase, res.text).to.equal('PROVISIONING');
        expectProblem(await admin.post(`/servers/${res.body.id}/migrate`, { nodeId: nodes.beta.nodeId }), 409, 'phase_busy');
      } finally {
        nodes.alpha.agent.release();
      }
    });

    it('needs servers.update in the team and the global nodes.manage; drain needs nodes.manage', async () => {
      const roles = new Map((await admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
      const teamAdmin = await createReadyUser(t, admin, 'tess');
      const viewer = await createReadyUser(t, admin, 'vic');
      const stranger = await createReadyUser(t, admin, 'sam');
      await admin.put(`/teams/${teamId}/members/${teamAdmin.userId}`, { roleIds: [roles.get('admin')] });
      await admin.put(`/teams/${teamId}/members/${viewer.userId}`, { roleIds: [roles.get('viewer')] });
      const body = { nodeId: nodes.beta.nodeId };
      expectProblem(await teamAdmin.client.post(`/servers/${server.id}/migrate`, body), 403, 'forbidden', 'nodes.manage');
      expectProblem(await viewer.client.post(`/servers/${server.id}/migrate`, body), 403, 'forbidden');
      expectProblem(await stranger.client.post(`/servers/${server.id}/migrate`, body), 404, 'not_found');
      expectProblem(await teamAdmin.client.post(`/nodes/${nodes.alpha.nodeId}/drain`), 403, 'forbidden');
      const denied = await admin.get<AuditEventPage>(`/audit-events?action=server.migrate&targetId=${server.id}`);
      expect(denied.body.items.map((e) => e.outcome)).to.include('DENIED');
      expect((await admin.get<ServerDetail>(`/servers/${server.id}`)).body.phase).to.equal('READY');
    });
  });

  it('moves a running server: files on the target, RUNNING there on a port of its own, gone from the source, audited and counted', async () => {
    const server = await running(nodes.alpha, 'mover');
    const res = await admin.post<ServerDetail>(`/servers/${server.id}/migrate`, { nodeId: nodes.beta.nodeId });
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ phase: 'MIGRATING', nodeId: nodes.alpha.nodeId });
    expect(res.body.workflow).to.include({ kind: 'MIGRATE', step: 'reserving', targetNodeId: nodes.beta.nodeId });
    expectProblem(await admin.post(`/servers/${server.id}/stop`), 409, 'phase_busy');

    const moved = await settled(server.id);
    expect(moved).to.include({ nodeId: nodes.beta.nodeId, desiredState: 'RUNNING' });
    expect(moved.workflow).to.equal(undefined);
    expect(moved.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    expect(moved.gamePort).to.be.a('number').and.not.equal(server.gamePort);
    expect(nodes.beta.files.files(server.id)).to.deep.equal(world);
    expect(nodes.beta.files.commits).to.include(server.id);
    await waitFor(() => nodes.alpha.files.files(server.id) === undefined, { what: 'the source to remove its copy' });
    await waitFor(() => nodes.alpha.agent.desiredOf(server.id) === undefined, { what: 'the source to be told the server is gone' });
    expect(nodes.beta.agent.desiredOf(server.id)).to.include({ desiredState: 'DESIRED_RUNTIME_STATE_RUNNING', gamePort: moved.gamePort });
    await waitForServer(admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING on the target', 5_000);
    expect((await admin.get<ServerPage>(`/servers?nodeId=${nodes.beta.nodeId}`)).body.items.map((s) => s.id)).to.include(server.id);

    const audit = await admin.get<AuditEventPage>(`/audit-events?action=server.migrate&targetId=${server.id}`);
    expect(audit.body.items[0]).to.deep.include({ outcome: 'SUCCESS' });
    expect(audit.body.items[0].details).to.deep.include({ targetNodeId: nodes.beta.nodeId, sourceNodeId: nodes.alpha.nodeId });
    const metrics = await admin.get('/metrics');
    expect(metrics.text).to.match(/cairn_workflows_total\{kind="MIGRATE",result="succeeded"\} [1-9]/);
  });

  it('refuses file and property changes while the server migrates (phase_busy), and takes them once it is READY', async () => {
    const server = await running(nodes.alpha, 'busy-files');
    const id = server.id;
    nodes.alpha.agent.hold();
    try {
      expect((await admin.post(`/servers/${id}/migrate`, { nodeId: nodes.beta.nodeId })).status).to.equal(202);
      const put = await admin.request('PUT', `/servers/${id}/files/content?path=late.txt`, { rawBody: Buffer.from('late'), contentType: 'application/octet-stream' });
      expectProblem(put, 409, 'phase_busy', 'MIGRATING (migrate: ');
      expect((put.body as { detail: string }).detail).to.include('could be lost');
      expectProblem(await admin.delete(`/servers/${id}/files?path=server.properties`), 409, 'phase_busy');
      expectProblem(await admin.post(`/servers/${id}/files/directories?path=late`), 409, 'phase_busy');
      expectProblem(await admin.patch(`/servers/${id}/properties`, { motd: 'late' }), 409, 'phase_busy');
    } finally {
      nodes.alpha.agent.release();
    }
    expect((await settled(id)).nodeId).to.equal(nodes.beta.nodeId);
    expect(nodes.beta.files.files(id), 'nothing refused reached either Node').to.deep.equal(world);
    const refused = await admin.get<AuditEventPage>(`/audit-events?action=server.file.write&targetId=${id}`);
    expect(refused.body.items.map((e) => e.outcome)).to.deep.equal(['FAILED']);
    nodes.beta.agent.client.handle('propertiesPatch', async ({ set }) => ({ payload: 'properties', properties: { values: set } }));
    const patched = await admin.patch(`/servers/${id}/properties`, { motd: 'later' });
    expect(patched.status, patched.text).to.equal(200);
    await removed(id);
  });

  it('waits for an upload under way when it began: the file lands before the last copy and moves with the server', async () => {
    const server = await running(nodes.alpha, 'uploading');
    const id = server.id;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const uploading = new Promise<void>((resolve) => (arrived = resolve));
    const parts: Buffer[] = [];
    nodes.alpha.agent.client.handle('fileWriteChunk', async (w) => {
      arrived();
      await gate;
      parts.push(Buffer.from(w.data));
      if (w.last) nodes.alpha.files.servers.get(id)!.set(w.path, Buffer.concat(parts));
      return {};
    });
    const upload = admin.request('PUT', `/servers/${id}/files/content?path=late.txt`, { rawBody: Buffer.from('written while it moved'), contentType: 'application/octet-stream' });
    await uploading;
    expect((await admin.post(`/servers/${id}/migrate`, { nodeId: nodes.beta.nodeId })).status).to.equal(202);
    // Stopped on its source, the migration holds at 'stopping' until the upload is done.
    await waitForServer(admin, id, (s) => s.workflow?.step === 'stopping' && s.status.runtimeState === 'STOPPED', 'the source stopped', 5_000);
    expect((await admin.get<ServerDetail>(`/servers/${id}`)).body.workflow?.step).to.equal('stopping');
    release();
    expect((await upload).status).to.equal(204);
    const moved = await settled(id);
    expect(moved.nodeId).to.equal(nodes.beta.nodeId);
    expect(nodes.beta.files.files(id)?.['late.txt']).to.equal('written while it moved');
    await removed(id);
  });

  it('holds the target\'s room and game port from the start, and gives the source\'s back at the end', async () => {
    const server = await create(nodes.alpha, 'holder');
    nodes.alpha.agent.hold();
    try {
      const before = await reserved(nodes.beta.nodeId);
      const res = await admin.post<ServerDetail>(`/servers/${server.id}/migrate`, { nodeId: nodes.beta.nodeId });
      expect(res.status, res.text).to.equal(202);
      expect(await reserved(nodes.beta.nodeId)).to.deep.equal({ cpuMillis: before.cpuMillis + 1000, memoryBytes: before.memoryBytes + GiB });
    } finally {
      nodes.alpha.agent.release();
    }
    const moved = await settled(server.id);
    expect(moved.nodeId).to.equal(nodes.beta.nodeId);
    const other = await admin.post<ServerDetail>('/servers', { name: 'neighbour', teamId, software: simcraft, resources: small, nodeId: nodes.beta.nodeId });
    expect(other.body.gamePort).to.not.equal(moved.gamePort);
  });

  it('rolls back on a checksum mismatch: READY and RUNNING on the source, stage aborted, MIGRATION_FAILED until acknowledged', async () => {
    const server = await running(nodes.alpha, 'corrupted');
    nodes.beta.files.corrupt = true;
    try {
      expect((await admin.post(`/servers/${server.id}/migrate`, { nodeId: nodes.beta.nodeId })).status).to.equal(202);
      const back = await settled(server.id);
      expect(back).to.include({ nodeId: nodes.alpha.nodeId, gamePort: server.gamePort, desiredState: 'RUNNING' });
      const failed = back.conditions.find((c) => c.reason === 'MIGRATION_FAILED');
      expect(failed?.message).to.include('copying').and.include('CHECKSUM_MISMATCH').and.include('beta');
      await waitFor(() => nodes.beta.files.aborted.length > 0 && nodes.beta.files.openStages === 0, { what: 'the stage to be aborted' });
    } finally {
      nodes.beta.files.corrupt = false;
    }
    expect(nodes.alpha.files.files(server.id)).to.deep.equal(world);
    expect(nodes.beta.files.files(server.id)).to.equal(undefined);
    expect(nodes.alpha.agent.desiredOf(server.id)?.desiredState).to.equal('DESIRED_RUNTIME_STATE_RUNNING');
    const ack = await admin.post<ServerDetail>(`/servers/${server.id}/conditions/MIGRATION_FAILED/acknowledge`);
    expect(ack.status, ack.text).to.equal(200);
    expect(ack.body.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    expect((await admin.get('/metrics')).text).to.match(/cairn_workflows_total\{kind="MIGRATE",result="rolled_back"\} [1-9]/);
  });

  it('rolls back when the source does not stop the server in time, and the server runs there again', async () => {
    const server = await running(nodes.alpha, 'stubborn');
    nodes.alpha.agent.hold();
    try {
      expect((await admin.post(`/servers/${server.id}/migrate`, { nodeId: nodes.beta.nodeId })).status).to.equal(202);
      const back = await settled(server.id);
      expect(back.nodeId).to.equal(nodes.alpha.nodeId);
      expect(back.conditions.find((c) => c.reason === 'MIGRATION_FAILED')?.message).to.include('stopping').and.include('did not stop the server within 3 s');
    } finally {
      nodes.alpha.agent.release();
    }
    await waitFor(() => nodes.alpha.agent.desiredOf(server.id)?.desiredState === 'DESIRED_RUNTIME_STATE_RUNNING', { what: 'the hold to be lifted' });
    await waitForServer(admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING on the source again', 5_000);
  });

  it('rolls back at once when the target\'s Agent goes away mid-way', async () => {
    const gone = await addNode('gone');
    const server = await running(nodes.alpha, 'orphan');
    nodes.alpha.agent.hold();
    try {
      expect((await admin.post(`/servers/${server.id}/migrate`, { nodeId: gone.nodeId })).status).to.equal(202);
      await waitForServer(admin, server.id, (s) => s.workflow?.step === 'stopping', 'stopping', 5_000);
      const lostAt = Date.now();
      gone.agent.stop();
      const back = await settled(server.id);
      expect(Date.now() - lostAt).to.be.below(2_500);
      expect(back.nodeId).to.equal(nodes.alpha.nodeId);
      expect(back.conditions.find((c) => c.reason === 'MIGRATION_FAILED')?.message).to.include('gone').and.include('unreachable');
    } finally {
      nodes.alpha.agent.release();
    }
    expect(await reserved(gone.nodeId)).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
  });

  it('drain disables the Node and moves every server off it, one at a time, where placement picks', async () => {
    const source = await addNode('source');
    const first = await running(source, 'drained-1');
    const second = await create(source, 'drained-2');
    const res = await admin.post<DrainStarted>(`/nodes/${source.nodeId}/drain`);
    expect(res.status, res.text).to.equal(202);
    expect(res.body.node).to.include({ id: source.nodeId, adminState: 'DISABLED', acceptsPlacements: false });
    expect(res.body.node.conditions.find((c) => c.reason === 'DRAINING')).to.include({ source: 'CONTROLLER' });
    expect(res.body.serverIds).to.deep.equal([first.id, second.id]);
    await waitFor(async () => (await admin.get<ServerPage>(`/servers?nodeId=${source.nodeId}`)).body.items.length === 0, { timeoutMs: 15_000, what: 'the Node to be empty' });
    await waitFor(async () => !(await admin.get<Node>(`/nodes/${source.nodeId}`)).body.conditions.some((c) => c.reason === 'DRAINING'), { what: 'DRAINING to go with the drain' });
    for (const [id, state] of [[first.id, 'RUNNING'], [second.id, 'STOPPED']]) {
      const moved = await settled(id);
      expect(moved.nodeId).to.be.oneOf([nodes.alpha.nodeId, nodes.beta.nodeId]);
      expect(moved.desiredState).to.equal(state);
      expect(moved.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    }
    expect(source.files.servers.size).to.equal(0);
    expect(await reserved(source.nodeId)).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
    const audit = await admin.get<AuditEventPage>(`/audit-events?action=node.drain&targetId=${source.nodeId}`);
    expect(audit.body.items[0]).to.deep.include({ outcome: 'SUCCESS' });
    expect(audit.body.items[0].details).to.deep.include({ serverIds: [first.id, second.id] });
  });

  it('enabling a Node ends its drain after the move under way: the servers not yet moved stay', async () => {
    const source = await addNode('half-drained');
    const first = await running(source, 'half-1');
    const second = await create(source, 'half-2');
    source.agent.hold();
    try {
      expect((await admin.post(`/nodes/${source.nodeId}/drain`)).status).to.equal(202);
      await waitForServer(admin, first.id, (s) => s.workflow?.step === 'stopping', 'the drain to be moving the first server', 5_000);
      expect((await admin.post(`/nodes/${source.nodeId}/enable`)).status).to.equal(200);
    } finally {
      source.agent.release();
    }
    const moved = await settled(first.id);
    expect(moved.nodeId).to.not.equal(source.nodeId);
    // The drain looks again after each move: the Node is ENABLED by then, so it ends and the second stays.
    await waitFor(async () => (await t.controller.repos.nodes.findById(source.nodeId))?.drain === undefined, { what: 'the drain to end' });
    const stays = await admin.get<ServerDetail>(`/servers/${second.id}`);
    expect(stays.body).to.include({ nodeId: source.nodeId, phase: 'READY' });
    expect(source.files.files(second.id)).to.deep.equal(world);
    await removed(first.id);
  });

  it('the built CLI migrates a server and drains a Node named by name', async () => {
    const token = (await admin.post<{ token: string }>('/me/tokens', { name: 'cli' })).body.token;
    const env = { CAIRN_URL: t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: '/nonexistent/cairn-credentials.json' };
    const cairn = (...args: string[]) => runBuilt('cli', args, { env });
    const server = await running(nodes.alpha, 'cli-mover');
    const migrate = await cairn('migrate', 'cli-mover', '--to', 'beta');
    expect(migrate.code, migrate.stderr).to.equal(0);
    expect(migrate.stdout).to.include('cli-mover');
    // Answered once the move is asked, as the drain below.
    await waitForServer(admin, server.id, (s) => s.phase === 'READY' && s.nodeId === nodes.beta.nodeId, 'the migrated server READY on beta', 10_000);

    const unknown = await cairn('migrate', 'cli-mover', '--to', 'nowhere');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('nowhere');

    const spare = await addNode('cli-spare');
    const parked = await create(spare, 'cli-parked');
    const drain = await cairn('drain', 'cli-spare');
    expect(drain.code, drain.stderr).to.equal(0);
    expect(drain.stdout).to.include('1 server moving');
    expect((await admin.get<Node>(`/nodes/${spare.nodeId}`)).body.adminState).to.equal('DISABLED');
    // The drain answers once the move is asked: the server may read READY on the spare until the run's first step is stored.
    await waitForServer(admin, parked.id, (s) => s.phase === 'READY' && s.nodeId !== spare.nodeId, 'the drained server READY on another Node', 10_000);
  });
});
