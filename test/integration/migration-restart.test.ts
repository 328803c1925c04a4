import { expect } from 'chai';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeFiles } from '../support/fake-files.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { Node, ServerDetail, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const world = { 'server.properties': 'motd=hello\n', 'world/level.dat': 'level' };

/**
 * A Controller stopped mid-migration (its runs end where they are, as a killed one's would) and
 * started again on the same data dir: what had not switched is rolled back, what had is finished.
 */
describe('migration across a Controller restart (fake Agents)', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let teamId: string;
  let source: { agent: FakeAgent; files: FakeFiles };
  let target: { agent: FakeAgent; files: FakeFiles };

  const connect = async (name: string) => {
    const agent = await FakeAgent.connect(admin, t.controller.grpcPort, name);
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: `${name} to accept placements` });
    return { agent, files: new FakeFiles(agent) };
  };
  const runningServer = async (name: string) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: { cpuMillis: 1000, memoryBytes: GiB }, nodeId: source.agent.nodeId });
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', 'READY', 5_000);
    source.files.seed(res.body.id, world);
    await admin.post(`/servers/${res.body.id}/start`);
    return waitForServer(admin, res.body.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING', 5_000);
  };
  const migrateUntil = async (serverId: string, step: string) => {
    const res = await admin.post<ServerDetail>(`/servers/${serverId}/migrate`, { nodeId: target.agent.nodeId });
    expect(res.status, res.text).to.equal(202);
    await waitForServer(admin, serverId, (s) => s.workflow?.step === step, `the migration to reach ${step}`, 5_000);
  };
  const restart = async () => {
    t = await t.restart();
    admin = t.api.withCookie(admin.auth.cookie!);
  };
  const settled = (id: string) => waitForServer(admin, id, (s) => s.phase === 'READY', 'READY after the restart', 10_000);

  beforeEach(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    source = await connect('source');
    target = await connect('target');
  });
  afterEach(async () => {
    source.agent.stop();
    target.agent.stop();
    await t.dispose();
  });

  it('rolls back a migration stopped before the switch: READY and running on the source, MIGRATION_FAILED', async () => {
    const server = await runningServer('early');
    source.agent.hold();
    await migrateUntil(server.id, 'stopping');
    await restart();
    source.agent.release();
    const back = await settled(server.id);
    expect(back).to.include({ nodeId: source.agent.nodeId, gamePort: server.gamePort, desiredState: 'RUNNING' });
    expect(back.conditions.find((c) => c.reason === 'MIGRATION_FAILED')?.message).to.include('stopping').and.include('restarted');
    await waitFor(() => source.agent.desiredOf(server.id)?.desiredState === 'DESIRED_RUNTIME_STATE_RUNNING', { what: 'the hold to be lifted' });
    expect(source.files.files(server.id)).to.deep.equal(world);
    expect(target.files.files(server.id)).to.equal(undefined);
    expect((await admin.get<Node>(`/nodes/${target.agent.nodeId}`)).body.reserved).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
  });

  it('rolls back a migration stopped while committing, and has the target remove whatever it committed', async () => {
    const server = await runningServer('committing');
    target.files.commitGate = new Promise(() => undefined);
    await migrateUntil(server.id, 'switching');
    await restart();
    const back = await settled(server.id);
    expect(back.nodeId).to.equal(source.agent.nodeId);
    expect(back.conditions.find((c) => c.reason === 'MIGRATION_FAILED')?.message).to.include('switching');
    await waitFor(() => target.agent.desiredOf(server.id) === undefined, { what: 'the target to be told the server is gone' });
    expect(source.files.files(server.id)).to.deep.equal(world);
  });

  it('finishes a migration stopped after the switch: READY on the target, removed from the source', async () => {
    const server = await runningServer('late');
    target.agent.hold();
    await migrateUntil(server.id, 'starting');
    await restart();
    target.agent.release();
    const moved = await settled(server.id);
    expect(moved.nodeId).to.equal(target.agent.nodeId);
    expect(moved.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    expect(target.files.files(server.id)).to.deep.equal(world);
    await waitFor(() => source.files.files(server.id) === undefined, { what: 'the source to remove its copy' });
    expect((await admin.get<Node>(`/nodes/${source.agent.nodeId}`)).body.reserved).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
  });
  it('carries on a drain cut short by the restart: every server ends on the other Node, the Node DISABLED', async () => {
    const first = await runningServer('first');
    const second = await runningServer('second');
    source.agent.hold();
    const res = await admin.post<{ serverIds: string[] }>(`/nodes/${source.agent.nodeId}/drain`);
    expect(res.status, res.text).to.equal(202);
    expect(res.body.serverIds).to.deep.equal([first.id, second.id]);
    await waitForServer(admin, first.id, (s) => s.workflow?.step === 'stopping', 'the drain to be moving the first server', 5_000);
    await restart();
    source.agent.release();
    // The first server's migration is rolled back at the start; the drain then moves both.
    for (const server of [first, second]) {
      const moved = await waitForServer(admin, server.id, (s) => s.phase === 'READY' && s.nodeId === target.agent.nodeId, `${server.name} on the target`, 20_000);
      expect(moved.desiredState).to.equal('RUNNING');
      expect(target.files.files(server.id)).to.deep.equal(world);
    }
    expect((await admin.get<Node>(`/nodes/${source.agent.nodeId}`)).body.adminState).to.equal('DISABLED');
    await waitFor(async () => (await t.controller.repos.nodes.findById(source.agent.nodeId))?.drain === undefined, { what: 'the drain to end' });
  });
});
