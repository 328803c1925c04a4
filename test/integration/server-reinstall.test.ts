import { expect } from 'chai';
import type { AuditEventPage, Node, ServerDetail, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

/** POST /servers/{serverId}/reinstall: a failed install is retried, anything else refused. */
describe('retrying a failed install', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let teamId: string;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'installer');
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    teamId = (await admin.post<Team>('/teams', { name: 'retry' })).body.id;
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  it('sends a FAILED install back to PROVISIONING with a new generation, audited, and the Node installs it again', async () => {
    agent.hold();
    const created = await admin.post<ServerDetail>('/servers', { name: 'flaky', teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    agent.send({ serverId: id, observedGeneration: 1, installed: false, installError: 'download failed' });
    const failed = await waitForServer(admin, id, (s) => s.phase === 'FAILED', 'the install FAILED');
    expect(failed.conditions.map((c) => c.reason)).to.include('INSTALL_FAILED');

    const retried = await admin.post<ServerDetail>(`/servers/${id}/reinstall`);
    expect(retried.status, retried.text).to.equal(202);
    expect(retried.body).to.deep.include({ phase: 'PROVISIONING', generation: failed.generation + 1 });
    expect(retried.body.conditions.map((c) => c.reason)).to.not.include('INSTALL_FAILED');
    expect(agent.desiredOf(id)?.generation).to.equal(failed.generation + 1);
    const audit = await admin.get<AuditEventPage>(`/audit-events?action=server.reinstall&targetId=${id}`);
    expect(audit.body.items).to.have.length(1);

    agent.release();
    await waitForServer(admin, id, (s) => s.phase === 'READY', 'installed on the retry');
    const again = await admin.post(`/servers/${id}/reinstall`);
    expect(again.status).to.equal(409);
    expect((again.body as { code: string }).code).to.equal('invalid_transition');
  });

  it('a failed install holds no room: another server takes it, and the retry is refused naming who holds it', async () => {
    const tight = await FakeAgent.connect(admin, t.controller.grpcPort, 'tight', { cpuMillis: 1000, memoryBytes: GiB });
    try {
      await waitFor(async () => (await admin.get<Node>(`/nodes/${tight.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
      const create = (name: string) => admin.post<ServerDetail>('/servers', { name, teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 600, memoryBytes: GiB / 4 }, nodeId: tight.nodeId });
      tight.hold();
      const survival = (await create('survival')).body.id;
      tight.send({ serverId: survival, observedGeneration: 1, installed: false, installError: 'download failed' });
      await waitForServer(admin, survival, (s) => s.phase === 'FAILED', 'the install FAILED');

      const lobby = await create('lobby');
      expect(lobby.status, lobby.text).to.equal(201);
      const retry = await admin.post(`/servers/${survival}/reinstall`);
      expectProblem(retry, 409, 'insufficient_capacity', 'reserved by: lobby (PROVISIONING)');
      expect((await admin.get<ServerDetail>(`/servers/${survival}`)).body.phase).to.equal('FAILED');
      // The failed one is not named: it holds nothing.
      expectProblem(await create('third'), 409, 'insufficient_capacity', 'it has 400m CPU, 768 MiB memory free; reserved by: lobby (PROVISIONING).');
    } finally {
      tight.stop();
    }
  });

  it('a failed install that the Node installs after all (an acknowledgement\'s new generation) becomes READY, not stuck FAILED', async () => {
    agent.hold();
    const created = await admin.post<ServerDetail>('/servers', { name: 'acknowledged', teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId });
    const id = created.body.id;
    agent.send({ serverId: id, observedGeneration: 1, installed: false, installError: 'download failed' });
    const failed = await waitForServer(admin, id, (s) => s.phase === 'FAILED', 'the install FAILED');
    const condition = failed.conditions.find((c) => c.reason === 'INSTALL_FAILED')!;
    expect((await admin.post(`/servers/${id}/conditions/${condition.id}/acknowledge`)).status).to.equal(200);
    agent.release();
    await waitForServer(admin, id, (s) => s.phase === 'READY', 'READY once the Node installed it');
  });
});
