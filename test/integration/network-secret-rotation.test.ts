import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { AuditEventPage, Node, RolePage, ServerDetail, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const simproxy = { template: 'simproxy', version: '3.4.0' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };

/** Every file under `dir`, as text. */
async function allText(dir: string): Promise<string> {
  let text = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), 'latin1');
  }
  return text;
}

/**
 * The forwarding secret is sealed in the store, rotated on demand and whenever a team is taken
 * out of the network: the proxy and the remaining members restart in turn with the new one, the
 * removed team's members leave (issue 40, item 4).
 */
describe('network forwarding secret: sealed, rotated, and rotated when a team is un-admitted (fake Agents)', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let tam: ApiClient;
  let members: FakeAgent;
  let proxyNode: FakeAgent;
  let teamA: string;
  let teamB: string;
  let proxyId: string;
  let alpha: ServerDetail;
  let bravo: ServerDetail;

  const secretOf = (agent: FakeAgent, serverId: string) => agent.desiredOf(serverId)?.network?.forwardingSecret;
  const detail = async (id: string) => (await admin.get<ServerDetail>(`/servers/${id}`)).body;
  const running = async (name: string, teamId: string) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: members.nodeId, inNetwork: true });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', `${name} READY`, 5_000);
    await admin.post(`/servers/${res.body.id}/start`);
    await waitForServer(admin, res.body.id, (s) => s.status.runtimeState === 'RUNNING', `${name} RUNNING`, 5_000);
    return detail(res.body.id);
  };

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    teamA = (await admin.post<Team>('/teams', { name: 'team-a' })).body.id;
    teamB = (await admin.post<Team>('/teams', { name: 'team-b' })).body.id;
    members = await FakeAgent.connect(admin, t.controller.grpcPort, 'members');
    proxyNode = await FakeAgent.connect(admin, t.controller.grpcPort, 'proxy-node');
    for (const agent of [members, proxyNode]) {
      await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    }
    const roles = new Map((await admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const user = await createReadyUser(t, admin, 'tam');
    await admin.put(`/teams/${teamA}/members/${user.userId}`, { roleIds: [roles.get('admin')] });
    tam = user.client;
    const proxy = await admin.post<ServerDetail>('/network/proxy', { software: simproxy, resources: small, nodeId: proxyNode.nodeId });
    expect(proxy.status, proxy.text).to.equal(201);
    proxyId = proxy.body.id;
    await waitForServer(admin, proxyId, (s) => s.phase === 'READY', 'proxy READY', 5_000);
    await admin.post(`/servers/${proxyId}/start`);
    expect((await admin.patch('/network', { teamIds: [teamA, teamB] })).status).to.equal(200);
    alpha = await running('alpha', teamA);
    bravo = await running('bravo', teamB);
    await waitFor(() => secretOf(proxyNode, proxyId), { what: 'the proxy told the secret' });
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    members?.stop();
    proxyNode?.stop();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
    await t.dispose();
  });

  it('keeps the secret sealed: it is nowhere in the store\'s files', async () => {
    const secret = secretOf(proxyNode, proxyId)!;
    expect(secret).to.match(/^[A-Za-z0-9]{40}$/);
    expect(await allText(t.dataDir)).to.not.include(secret);
  });

  it('POST /network/forwarding-secret is for global administrators; it rotates the secret and restarts the proxy and each running member in turn', async () => {
    expectProblem(await tam.post('/network/forwarding-secret'), 403, 'forbidden');
    const old = secretOf(proxyNode, proxyId)!;
    const before = new Map(await Promise.all([proxyId, alpha.id, bravo.id].map(async (id) => [id, (await detail(id)).generation] as const)));
    // The members' Node answers nothing for a while: their restarts stay due, and say so.
    members.hold();
    const res = await admin.post('/network/forwarding-secret');
    expect(res.status, res.text).to.equal(204);
    const fresh = await waitFor(() => (secretOf(proxyNode, proxyId) !== old ? secretOf(proxyNode, proxyId) : undefined), { what: 'the proxy told a new secret' });
    await waitForServer(admin, proxyId, (s) => s.generation > before.get(proxyId)! && s.markers.length === 0, 'the proxy restarted', 5_000);
    await waitForServer(admin, alpha.id, (s) => s.generation > before.get(alpha.id)!, 'alpha restarting', 5_000);
    expect((await detail(alpha.id)).markers).to.deep.equal(['RESTART_PENDING']);
    expect((await detail(bravo.id)).markers).to.deep.equal(['RESTART_PENDING']);
    expect((await detail(bravo.id)).generation, 'one member at a time').to.equal(before.get(bravo.id));
    members.release();
    for (const s of [alpha, bravo]) {
      await waitForServer(admin, s.id, (d) => d.generation > before.get(s.id)! && d.status.runtimeState === 'RUNNING' && d.markers.length === 0, `${s.name} restarted`, 5_000);
      expect(secretOf(members, s.id)).to.equal(fresh);
    }
    expect(await allText(t.dataDir)).to.not.include(fresh);
    const audit = (await admin.get<AuditEventPage>('/audit-events?action=network.forwarding_secret.rotate')).body.items;
    expect(audit.map((e) => e.outcome).sort()).to.deep.equal(['DENIED', 'SUCCESS']);
    expect(audit.find((e) => e.outcome === 'SUCCESS')?.details).to.deep.include({ restartsDue: [proxyId, alpha.id, bravo.id] });
    expect(JSON.stringify(audit)).to.not.include(fresh);
  });

  it('un-admitting a team takes its members out of the network and rotates the secret; the rest restart with the new one', async () => {
    const old = secretOf(proxyNode, proxyId)!;
    const before = new Map(await Promise.all([proxyId, alpha.id, bravo.id].map(async (id) => [id, (await detail(id)).generation] as const)));
    const res = await admin.patch('/network', { teamIds: [teamA] });
    expect(res.status, res.text).to.equal(200);
    expect((await detail(bravo.id)).inNetwork).to.equal(false);
    const fresh = await waitFor(() => (secretOf(proxyNode, proxyId) !== old ? secretOf(proxyNode, proxyId) : undefined), { what: 'the proxy told a new secret' });
    await waitForServer(admin, alpha.id, (d) => d.generation > before.get(alpha.id)! && d.markers.length === 0, 'alpha restarted', 5_000);
    expect(secretOf(members, alpha.id)).to.equal(fresh);
    // The removed team's member is told no secret any more, and restarts out of the network.
    await waitForServer(admin, bravo.id, (d) => d.status.runtimeState === 'RUNNING' && d.markers.length === 0, 'bravo restarted out of the network', 5_000);
    expect(members.desiredOf(bravo.id)?.network).to.equal(null);
    expect((await detail(proxyId)).generation).to.be.greaterThan(before.get(proxyId)!);
    const audit = (await admin.get<AuditEventPage>('/audit-events?action=network.update')).body.items[0];
    expect(audit.details).to.deep.include({ leftNetwork: [bravo.id], forwardingSecretRotated: true });
    // The team admin of a team still admitted keeps its place; the removed team cannot rejoin by itself.
    expect((await tam.patch<ServerDetail>(`/servers/${alpha.id}`, { inNetwork: true })).status).to.equal(200);
  });
});
