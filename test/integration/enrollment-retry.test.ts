import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { enroll, EnrollmentRefused } from '../../src/agent/link/enroll.js';
import { newEnrollmentAttemptId } from '../../src/agent/link/enrollment-attempt.js';
import { AgentLinkClient } from '../../src/agent/link/link-client.js';
import { enrollLimits } from '../../src/controller/link/agent-link.js';
import type { EnrollInput } from '../../src/controller/services/nodes/enrollment.js';
import { silentLogger } from '../../src/shared/logger.js';
import { linkHarness } from '../support/link-harness.js';
import type { AuditEventPage } from '../support/api-types.js';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';

const nodeTimings = { heartbeatIntervalMs: 100, degradedAfterMs: 400, unreachableAfterMs: 1_000 };
const insecure = grpc.credentials.createInsecure();

describe('Enrollment retries after a lost answer (real gRPC)', function () {
  this.timeout(20_000);
  const h = linkHarness(nodeTimings);
  const { clients, address, createNode } = h;
  const call = (enrollmentToken: string, enrollmentAttemptId: string, timeoutMs?: number) =>
    enroll(address(), insecure, { enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId }, timeoutMs);
  const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
  const auditOf = async (nodeId: string) =>
    (await h.admin.get<AuditEventPage>(`/audit-events?action=node.enroll&targetId=${nodeId}`)).body.items.map((e) => [e.outcome, e.details.reason ?? null, e.details.retry ?? false]);
  /** Connects as an Agent would with the credential and waits for HEALTHY. */
  async function connectHealthy(nodeId: string, credential: string) {
    const gamePorts = await privateGamePorts();
    const client = new AgentLinkClient({
      address: address(), channelCredentials: insecure, credential, logger: silentLogger, backoff: { initialMs: 50, maxMs: 200, factor: 2 },
      hello: async () => ({
        agentVersion: '1', protocolVersion: 1, knownServerIds: [], gamePorts, acceptsDesiredChanges: true, isolation: null, runtimes: [],
        host: { hostname: 'h', os: 'linux', arch: 'x64', runtimeName: 'process', runtimeVersion: 'v20' },
        allocatable: { cpuMillis: 2000, memoryBytes: 4096, diskBytes: 8192 },
      }),
      heartbeat: async () => ({ usage: { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, conditions: [], sentAtUnixMs: Date.now() }),
    });
    clients.push(client);
    client.start();
    await waitFor(() => h.t.controller.services.fleet.state(nodeId)?.connectionState === 'HEALTHY' || undefined, { what: `${nodeId} HEALTHY` });
  }
  /** Makes the Controller answer Enroll only after `release()`, having done all its work. */
  function holdAnswers() {
    const gate = h.t.controller.services.enrollment;
    const original = gate.enroll.bind(gate);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let committed = 0;
    gate.enroll = async (input: EnrollInput, peer: string) => {
      const result = await original(input, peer);
      committed++;
      await released;
      return result;
    };
    return { release, committed: () => committed, restore: () => void (gate.enroll = original) };
  }

  it('an answer lost to the client deadline: the retry with the same attempt id gets a working credential, another attempt id is refused', async () => {
    const { node, enrollmentToken } = await createNode('lost');
    const attemptId = newEnrollmentAttemptId();
    const held = holdAnswers();
    try {
      const lost = await refusal(call(enrollmentToken, attemptId, 300));
      expect((lost as grpc.ServiceError).code).to.equal(grpc.status.DEADLINE_EXCEEDED);
      await waitFor(() => held.committed() === 1 || undefined, { what: 'the first Enroll committed' });
    } finally {
      held.release();
      held.restore();
    }
    expect(await refusal(call(enrollmentToken, newEnrollmentAttemptId()))).to.be.instanceOf(EnrollmentRefused);
    expect(await refusal(call(enrollmentToken, ''))).to.be.instanceOf(EnrollmentRefused);
    const retried = await call(enrollmentToken, attemptId);
    expect(retried.nodeId).to.equal(node.id);
    await connectHealthy(node.id, retried.credential);
    expect(await auditOf(node.id)).to.deep.equal([['SUCCESS', null, true], ['DENIED', 'used_token', false], ['DENIED', 'used_token', false], ['SUCCESS', null, false]]);
    const page = await h.admin.get<AuditEventPage>(`/audit-events?action=node.enroll&targetId=${node.id}`);
    expect(JSON.stringify(page.body)).not.to.include(attemptId).and.not.to.include(enrollmentToken);
  });

  it('both answers of the same attempt stay valid (one credential id), and the retry window closes after 15 minutes', async () => {
    const { node, enrollmentToken } = await createNode('twice');
    const attemptId = newEnrollmentAttemptId();
    const [first, second] = await Promise.all([call(enrollmentToken, attemptId), call(enrollmentToken, attemptId)]);
    const claims = (credential: string) => JSON.parse(Buffer.from(credential.split('.')[1], 'base64url').toString()) as { sub: string; jti: string };
    expect(claims(first.credential).jti).to.equal(claims(second.credential).jti);
    expect(await h.t.controller.services.enrollment.authenticate(first.credential)).to.equal(node.id);
    expect(await h.t.controller.services.enrollment.authenticate(second.credential)).to.equal(node.id);
    await connectHealthy(node.id, first.credential);
    h.t.clock.advance(15 * 60 * 1000);
    expect(await refusal(call(enrollmentToken, attemptId))).to.be.instanceOf(EnrollmentRefused);
  });

  it('a token re-issued after a use ends the retries of the old one; an Agent without the field is refused on retry as before', async () => {
    const { node, enrollmentToken } = await createNode('reissued');
    const attemptId = newEnrollmentAttemptId();
    await call(enrollmentToken, attemptId);
    await h.admin.post(`/nodes/${node.id}/enrollment-token`);
    expect(await refusal(call(enrollmentToken, attemptId))).to.be.instanceOf(EnrollmentRefused);

    const old = await createNode('old-agent');
    await call(old.enrollmentToken, '');
    expect(await refusal(call(old.enrollmentToken, ''))).to.be.instanceOf(EnrollmentRefused);
  });

  it('a retry of a revoked Node is refused', async () => {
    const { node, enrollmentToken } = await createNode('revoked-retry');
    const attemptId = newEnrollmentAttemptId();
    await call(enrollmentToken, attemptId);
    await h.admin.post(`/nodes/${node.id}/revoke`);
    expect(await refusal(call(enrollmentToken, attemptId))).to.be.instanceOf(EnrollmentRefused);
    const denied = await h.admin.get<AuditEventPage>('/audit-events?action=node.enroll&outcome=DENIED');
    // Revoking forgets the Node's tokens, so the retry finds none.
    expect(denied.body.items[0]).to.deep.include({ actorKind: 'AGENT', targetId: '' });
    expect(denied.body.items[0].details.reason).to.equal('unknown_token');
  });

  it(`Enrolls beyond ${enrollLimits.running} at once wait their turn; one whose client gave up while waiting does no work`, async () => {
    const nodes = await Promise.all(Array.from({ length: enrollLimits.running + 2 }, (_, i) => createNode(`queued-${i}`)));
    const late = nodes.pop()!;
    const held = holdAnswers();
    let outcomes: unknown[];
    try {
      const calls = nodes.map((n) => refusal(call(n.enrollmentToken, newEnrollmentAttemptId())));
      await waitFor(() => held.committed() === enrollLimits.running || undefined, { what: 'the first Enrolls committed' });
      const gaveUp = await refusal(call(late.enrollmentToken, newEnrollmentAttemptId(), 300));
      expect((gaveUp as grpc.ServiceError).code).to.equal(grpc.status.DEADLINE_EXCEEDED);
      // The Controller counts the deadline from when the call reached it, a moment after the client did.
      await new Promise((resolve) => setTimeout(resolve, 100));
      held.release();
      outcomes = await Promise.all(calls);
    } finally {
      held.release();
      held.restore();
    }
    expect(outcomes.filter((o) => o !== undefined)).to.deep.equal([]);
    expect(held.committed()).to.equal(enrollLimits.running + 1);
    expect(await auditOf(late.node.id)).to.deep.equal([]);
    expect((await call(late.enrollmentToken, newEnrollmentAttemptId())).nodeId).to.equal(late.node.id);
  });
});
