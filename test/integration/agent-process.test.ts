import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { access, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enroll } from '../../src/agent/link/enroll.js';
import { attemptFile, EnrollmentAttemptStore } from '../../src/agent/link/enrollment-attempt.js';
import { credentialFile } from '../../src/shared/credential-store.js';
import { AgentPool } from '../support/agent-process.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, EnrollmentIssued, Node, Problem } from '../support/api-types.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

/** Short timings so no test waits for the real 5 s / 15 s / 45 s. */
const nodeTimings = { heartbeatIntervalMs: 200, degradedAfterMs: 1_500, unreachableAfterMs: 4_000 };

describe('cairn-agent end to end (real Agent processes)', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let agentDirs: string;
  const agents = new AgentPool();

  before(async () => {
    t = await startTestController({ nodeTimings });
    ({ admin } = await setupAdmin(t));
    agentDirs = await mkdtemp(join(tmpdir(), 'cairn-agents-'));
  });
  after(async () => {
    await agents.killAll();
    await t.dispose();
    await rm(agentDirs, { recursive: true, force: true });
  });

  async function createNode(name: string) {
    const res = await admin.post<EnrollmentIssued>('/nodes', { name });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  const nodeOf = async (id: string) => (await admin.get<Node>(`/nodes/${id}`)).body;
  // A fresh Agent process compiles its TypeScript through tsx first: on a loaded 2-core machine that alone took 8.5 s.
  const waitForState = (id: string, state: string, timeoutMs = 30_000) =>
    waitFor(async () => {
      const node = await nodeOf(id);
      return node.status.connectionState === state ? node : undefined;
    }, { timeoutMs, what: `Node ${id} ${state}` });

  it('enrolls, connects and is HEALTHY within seconds with every field filled; the credential is private and never logged', async () => {
    const { node, enrollmentToken } = await createNode('alpha');
    const dataDir = join(agentDirs, 'alpha');
    const gamePorts = await privateGamePorts();
    const agent = await agents.start({
      grpcPort: t.controller.grpcPort, dataDir, enrollmentToken, gamePorts,
      extra: ['--cpu-millis', '4000', '--memory-bytes', String(8 * 2 ** 30), '--disk-bytes', String(100 * 2 ** 30)],
    });
    // "Within seconds" is the wait's own deadline: speed belongs to bench/, and a busy CI machine must not fail it.
    const healthy = await waitForState(node.id, 'HEALTHY');
    await waitFor(async () => ((await nodeOf(node.id)).status.usage.memoryBytes > 0 ? true : undefined), { what: 'usage reported' });
    const shown = await nodeOf(node.id);
    expect(shown).to.deep.include({ adminState: 'ENABLED', acceptsPlacements: true, address: '', reachAddress: '127.0.0.1' });
    expect(shown.status).to.include({ observedAddress: '127.0.0.1', runtimeName: 'process', runtimeVersion: process.version, os: process.platform, arch: process.arch });
    expect(shown.status.hostname).to.be.a('string').and.not.equal('');
    expect(shown.status.agentVersion).to.match(/^\d+\.\d+\.\d+/);
    expect(shown.status.allocatable).to.deep.equal({ cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, diskBytes: 100 * 2 ** 30 });
    expect(shown.status.gamePorts).to.deep.equal(gamePorts);
    expect(shown.status.usage.diskBytes).to.be.above(0);
    expect(shown.status.lastHeartbeatAt).to.be.a('string');
    expect(shown.free).to.deep.equal({ cpuMillis: 4000, memoryBytes: 8 * 2 ** 30 });
    expect(shown.reserved).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
    expect(healthy.conditions).to.deep.equal([]);

    const file = join(dataDir, credentialFile);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    const { credential } = JSON.parse(await readFile(file, 'utf8')) as { credential: string };
    expect(agent.stderr + agent.stdout).not.to.include(credential);
    expect(agent.stderr + agent.stdout).not.to.include(enrollmentToken);
    expect(agent.stderr).to.match(/"event":"connected"/);
    const audit = await admin.get<AuditEventPage>(`/audit-events?action=node.enroll&targetId=${node.id}`);
    expect(audit.body.items[0]).to.include({ actorKind: 'AGENT', outcome: 'SUCCESS' });
  });

  it('disable and enable change acceptsPlacements only; revoke closes the stream at once and is final', async () => {
    const { node, enrollmentToken } = await createNode('bravo');
    const agent = await agents.start({ grpcPort: t.controller.grpcPort, dataDir: join(agentDirs, 'bravo'), enrollmentToken });
    await waitForState(node.id, 'HEALTHY');

    const disabled = await admin.post<Node>(`/nodes/${node.id}/disable`);
    expect(disabled.status).to.equal(200);
    expect(disabled.body).to.deep.include({ adminState: 'DISABLED', acceptsPlacements: false });
    expect(disabled.body.status.connectionState).to.equal('HEALTHY');
    const enabled = await admin.post<Node>(`/nodes/${node.id}/enable`);
    expect(enabled.body).to.deep.include({ adminState: 'ENABLED', acceptsPlacements: true });

    const revoked = await admin.post<Node>(`/nodes/${node.id}/revoke`);
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.deep.include({ adminState: 'REVOKED', acceptsPlacements: false });
    expect(revoked.body.status.connectionState).to.equal('UNREACHABLE');
    expect(t.controller.services.agents.isConnected(node.id)).to.equal(false);
    await waitFor(() => /credential_refused/.test(agent.stderr) || undefined, { what: 'the Agent to see its credential refused' });
    expect(agent.running).to.equal(true);
    expect((await nodeOf(node.id)).status.connectionState).to.equal('UNREACHABLE');

    const again = await admin.post<Problem>(`/nodes/${node.id}/enable`);
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('invalid_transition');
  });

  it('an Agent that is killed makes its Node UNREACHABLE', async () => {
    const { node, enrollmentToken } = await createNode('charlie');
    const agent = await agents.start({ grpcPort: t.controller.grpcPort, dataDir: join(agentDirs, 'charlie'), enrollmentToken });
    await waitForState(node.id, 'HEALTHY');
    await agent.kill('SIGKILL');
    const lost = await waitForState(node.id, 'UNREACHABLE', 3_000);
    expect(lost.acceptsPlacements).to.equal(false);
    expect(lost.conditions.map((c: { reason: string }) => c.reason)).to.deep.equal(['NODE_UNREACHABLE']);
  });

  it('an Agent restarted after its Enroll answer was lost enrolls with the same attempt id; the attempt file goes once the credential is kept', async () => {
    const { node, enrollmentToken } = await createNode('golf');
    const dataDir = join(agentDirs, 'golf');
    await mkdir(dataDir, { recursive: true });
    // The first run drew its attempt id, and the Controller answered a call the Agent never saw.
    const attemptId = await new EnrollmentAttemptStore(dataDir).idFor(enrollmentToken);
    await enroll(`127.0.0.1:${t.controller.grpcPort}`, grpc.credentials.createInsecure(), { enrollmentToken, hostname: 'golf', agentVersion: '1', enrollmentAttemptId: attemptId });
    const agent = await agents.start({ grpcPort: t.controller.grpcPort, dataDir, enrollmentToken });
    await waitForState(node.id, 'HEALTHY');
    await access(join(dataDir, credentialFile));
    expect(await access(join(dataDir, attemptFile)).then(() => 'kept', () => 'gone')).to.equal('gone');
    expect(agent.stderr + agent.stdout).not.to.include(attemptId);
  });

  it('two Agents at once are two HEALTHY Nodes; a reused token is refused and that Agent exits', async () => {
    const one = await createNode('delta');
    const two = await createNode('echo');
    await agents.start({ grpcPort: t.controller.grpcPort, dataDir: join(agentDirs, 'delta'), enrollmentToken: one.enrollmentToken });
    await agents.start({ grpcPort: t.controller.grpcPort, dataDir: join(agentDirs, 'echo'), enrollmentToken: two.enrollmentToken });
    await Promise.all([waitForState(one.node.id, 'HEALTHY'), waitForState(two.node.id, 'HEALTHY')]);
    expect(t.controller.services.agents.isConnected(one.node.id)).to.equal(true);
    expect(t.controller.services.agents.isConnected(two.node.id)).to.equal(true);

    const thief = await agents.start({ grpcPort: t.controller.grpcPort, dataDir: join(agentDirs, 'thief'), enrollmentToken: one.enrollmentToken });
    expect(await thief.exited).to.equal(3);
    expect(thief.stderr).to.match(/enrollment refused/);
    expect((await nodeOf(one.node.id)).status.connectionState).to.equal('HEALTHY');
  });

  it('after a Controller restart the Agent reconnects by itself and the Node is HEALTHY again', async () => {
    const { node, enrollmentToken } = await createNode('foxtrot');
    await agents.start({ grpcPort: t.controller.grpcPort, dataDir: join(agentDirs, 'foxtrot'), enrollmentToken });
    await waitForState(node.id, 'HEALTHY');
    const cookie = admin.auth.cookie!;
    t = await t.restart();
    admin = t.api.withCookie(cookie);
    const right = await nodeOf(node.id);
    expect(right.status.hostname).to.not.equal('');
    const back = await waitForState(node.id, 'HEALTHY', 10_000);
    expect(back.acceptsPlacements).to.equal(true);
  });
});
