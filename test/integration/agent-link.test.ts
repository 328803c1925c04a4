import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { enroll, EnrollmentRefused } from '../../src/agent/link/enroll.js';
import { newEnrollmentAttemptId } from '../../src/agent/link/enrollment-attempt.js';
import { AgentError } from '../../src/agent/errors.js';
import { AgentLinkClient } from '../../src/agent/link/link-client.js';
import { AgentRequestError, NodeUnavailableError } from '../../src/controller/link/errors.js';
import { defaultGamePorts } from '../../src/shared/game-ports.js';
import type { Condition, DesiredServer, DesiredState, Heartbeat, PortRange } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import { linkHarness } from '../support/link-harness.js';
import type { AuditEventPage, EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';

const nodeTimings = { heartbeatIntervalMs: 100, degradedAfterMs: 400, unreachableAfterMs: 1_000 };
const insecure = grpc.credentials.createInsecure();
const fastBackoff = { initialMs: 50, maxMs: 200, factor: 2 };

describe('Agent link (in-process Agent client over real gRPC)', function () {
  this.timeout(15_000);
  const h = linkHarness(nodeTimings);
  const { clients, address, createNode } = h;
  const enrollNode = async (name: string) => {
    const { node, enrollmentToken } = await createNode(name);
    const { credential } = await enroll(address(), insecure, { enrollmentToken, hostname: `${name}.test`, agentVersion: '9.9.9', enrollmentAttemptId: newEnrollmentAttemptId() });
    return { nodeId: node.id, credential };
  };
  const nodeOf = async (id: string) => (await h.admin.get<Node>(`/nodes/${id}`)).body;
  /** A small simcraft server placed on the Node (it fits the 2000 millis and 4096 bytes the test Agents offer). */
  const createServer = async (name: string, nodeId: string) => {
    const teamId = (await h.admin.post<Team>('/teams', { name })).body.id;
    const res = await h.admin.post<ServerDetail>('/servers', { name, teamId, nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: 1024 } });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const stateOf = (id: string) => h.t.controller.services.fleet.state(id);

  /** `gamePorts`: the range the hello offers (a private one unless given; null is an Agent older than the field). */
  function connect(credential: string, options: { heartbeat?: () => Promise<Heartbeat>; conditions?: () => Condition[]; gamePorts?: PortRange | null } = {}) {
    const client = new AgentLinkClient({
      address: address(), channelCredentials: insecure, credential, logger: silentLogger, backoff: fastBackoff,
      hello: async () => ({
        agentVersion: '9.9.9', protocolVersion: 1, knownServerIds: [],
        host: { hostname: 'sim', os: 'linux', arch: 'x64', runtimeName: 'process', runtimeVersion: 'v20' },
        allocatable: { cpuMillis: 2000, memoryBytes: 4096, diskBytes: 8192 },
        gamePorts: options.gamePorts === undefined ? await privateGamePorts() : options.gamePorts,
        // As an Agent older than desired-state changes: every change comes as the full state.
        acceptsDesiredChanges: false,
        isolation: null,
        runtimes: [],
      }),
      heartbeat: options.heartbeat ?? (async () => ({
        usage: { cpuMillis: 100, memoryBytes: 1024, diskBytes: 2048 }, conditions: options.conditions?.() ?? [], sentAtUnixMs: Date.now(),
      })),
    });
    clients.push(client);
    client.start();
    return client;
  }
  const waitConnection = (id: string, state: string, timeoutMs = 5_000) =>
    waitFor(() => stateOf(id)?.connectionState === state || undefined, { timeoutMs, what: `${id} ${state}` });

  describe('enrollment', () => {
    it('a token works once; reusing it is refused (UNAUTHENTICATED) and audited', async () => {
      const { node, enrollmentToken } = await createNode('once');
      const first = await enroll(address(), insecure, { enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' });
      expect(first.nodeId).to.equal(node.id);
      expect(first.credential.split('.')).to.have.length(3);
      try {
        await enroll(address(), insecure, { enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' });
        expect.fail('reuse was accepted');
      } catch (e) {
        expect(e).to.be.instanceOf(EnrollmentRefused);
      }
      const audit = await h.admin.get<AuditEventPage>(`/audit-events?action=node.enroll&targetId=${node.id}`);
      expect(audit.body.items.map((e) => [e.actorKind, e.outcome, e.details.reason]))
        .to.deep.equal([['AGENT', 'DENIED', 'used_token'], ['AGENT', 'SUCCESS', undefined]]);
      expect((await nodeOf(node.id)).status.connectionState).to.equal('UNREACHABLE');
    });

    it('an expired token is refused', async () => {
      const { enrollmentToken } = await createNode('late');
      h.t.clock.advance(60 * 60 * 1000 + 1);
      try {
        await enroll(address(), insecure, { enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' }).then(() => expect.fail('accepted'));
      } catch (e) {
        expect(e).to.be.instanceOf(EnrollmentRefused);
      }
    });

    it('an unknown token, and the token of a revoked Node, are refused', async () => {
      const refused = (token: string) => enroll(address(), insecure, { enrollmentToken: token, hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' }).then(() => false, (e: unknown) => e instanceof EnrollmentRefused);
      expect(await refused('cairn_enr_nonsense')).to.equal(true);
      const { node, enrollmentToken } = await createNode('revoked-early');
      await h.admin.post(`/nodes/${node.id}/revoke`);
      expect(await refused(enrollmentToken)).to.equal(true);
    });

    it('refusals past 20 per peer in 15 minutes are still refused, but not each audited', async () => {
      const denied = async () => (await h.admin.get<AuditEventPage>('/audit-events?action=node.enroll&outcome=DENIED&limit=200')).body.items;
      const before = (await denied()).length;
      const refusals = await Promise.all(Array.from({ length: 40 }, (_, i) =>
        enroll(address(), insecure, { enrollmentToken: `cairn_enr_unknown${i}`, hostname: 'flood', agentVersion: '1', enrollmentAttemptId: '' }).then(() => false, (e: unknown) => e instanceof EnrollmentRefused)));
      expect(refusals.every(Boolean)).to.equal(true);
      const after = await denied();
      expect(after.length - before).to.be.within(1, 20);
      expect(after[0].details).to.include({ peer: '127.0.0.1', reason: 'unknown_token' });
    });

    it('a re-issued token replaces the unused one, and enrolling with it replaces the credential', async () => {
      const { nodeId, credential } = await enrollNode('reenroll');
      const issued = await h.admin.post<EnrollmentIssued>(`/nodes/${nodeId}/enrollment-token`);
      expect(issued.status).to.equal(201);
      const second = await h.admin.post<EnrollmentIssued>(`/nodes/${nodeId}/enrollment-token`);
      const stale = await enroll(address(), insecure, { enrollmentToken: issued.body.enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' }).catch((e: unknown) => e);
      expect(stale).to.be.instanceOf(EnrollmentRefused);
      const fresh = await enroll(address(), insecure, { enrollmentToken: second.body.enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' });
      expect(fresh.nodeId).to.equal(nodeId);
      const old = connect(credential);
      await waitFor(() => h.t.controller.services.agents.isConnected(nodeId) === false && old.connected === false || undefined);
      connect(fresh.credential);
      await waitConnection(nodeId, 'HEALTHY');
    });
  });

  describe('connections', () => {
    it('HEALTHY on hello, with facts and usage; a missing credential is refused', async () => {
      const { nodeId, credential } = await enrollNode('facts');
      const gamePorts = await privateGamePorts();
      connect(credential, { gamePorts });
      await waitConnection(nodeId, 'HEALTHY');
      await waitFor(async () => ((await nodeOf(nodeId)).status.usage.cpuMillis === 100 ? true : undefined));
      const node = await nodeOf(nodeId);
      expect(node.status).to.deep.include({ hostname: 'sim', agentVersion: '9.9.9', observedAddress: '127.0.0.1', allocatable: { cpuMillis: 2000, memoryBytes: 4096, diskBytes: 8192 }, gamePorts });
      expect(node.free).to.deep.equal({ cpuMillis: 2000, memoryBytes: 4096 });
      const bad = connect('not-a-credential');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(bad.connected).to.equal(false);
    });

    it('an Agent that offers no game port range, or an invalid one, gets the default range', async () => {
      for (const [name, gamePorts] of [['older', null], ['inverted', { first: 30001, last: 30000 }], ['privileged', { first: 80, last: 90 }]] as const) {
        const { nodeId, credential } = await enrollNode(name);
        connect(credential, { gamePorts });
        await waitConnection(nodeId, 'HEALTHY');
        expect((await nodeOf(nodeId)).status.gamePorts, name).to.deep.equal(defaultGamePorts);
      }
    });

    it('a second connection of the same Node replaces the first', async () => {
      const { nodeId, credential } = await enrollNode('twice');
      const first = connect(credential);
      await waitFor(() => first.connected || undefined);
      const firstSession = h.t.controller.services.agents.get(nodeId);
      const second = connect(credential);
      await waitFor(() => (second.connected && h.t.controller.services.agents.get(nodeId) !== firstSession) || undefined);
      expect(firstSession!.closed).to.equal(true);
      expect(stateOf(nodeId)!.connectionState).to.equal('HEALTHY');
      first.stop();
    });

    it('heartbeats that stop make the Node DEGRADED, then UNREACHABLE, and a heartbeat heals it', async () => {
      const { nodeId, credential } = await enrollNode('frozen');
      let frozen = false;
      let release: () => void = () => undefined;
      connect(credential, {
        heartbeat: async () => {
          if (frozen) await new Promise<void>((resolve) => (release = resolve));
          return { usage: { cpuMillis: 1, memoryBytes: 1, diskBytes: 1 }, conditions: [], sentAtUnixMs: Date.now() };
        },
      });
      await waitConnection(nodeId, 'HEALTHY');
      frozen = true;
      await waitConnection(nodeId, 'DEGRADED');
      expect(stateOf(nodeId)!.conditions.map((c) => c.reason)).to.deep.equal(['HEARTBEAT_MISSED']);
      await waitConnection(nodeId, 'UNREACHABLE');
      expect(stateOf(nodeId)!.conditions.map((c) => c.reason)).to.deep.equal(['NODE_UNREACHABLE']);
      frozen = false;
      release();
      await waitConnection(nodeId, 'HEALTHY');
      expect(stateOf(nodeId)!.conditions).to.deep.equal([]);
    });

    it('an Agent reporting DISK_PRESSURE makes its Node DEGRADED and not accept placements', async () => {
      const { nodeId, credential } = await enrollNode('pressured');
      let pressure = true;
      connect(credential, { conditions: () => (pressure ? [{ id: 'disk-pressure', reason: 'DISK_PRESSURE', message: '2% free', since: '' }] : []) });
      await waitConnection(nodeId, 'DEGRADED');
      const node = await nodeOf(nodeId);
      expect(node.acceptsPlacements).to.equal(false);
      expect(node.conditions).to.have.length(1);
      expect(node.conditions[0]).to.include({ id: 'agent.disk-pressure', source: 'AGENT', reason: 'DISK_PRESSURE' });
      pressure = false;
      await waitConnection(nodeId, 'HEALTHY');
    });

    it('a revoked Node\'s stream is closed at once and its credential refused afterwards', async () => {
      const { nodeId, credential } = await enrollNode('revoked-live');
      const client = connect(credential);
      await waitConnection(nodeId, 'HEALTHY');
      await h.admin.post(`/nodes/${nodeId}/revoke`);
      await waitFor(() => !client.connected || undefined, { timeoutMs: 1_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(client.connected).to.equal(false);
      expect(stateOf(nodeId)!.connectionState).to.equal('UNREACHABLE');
    });
  });

  describe('desired state and requests', () => {
    const server: DesiredServer = {
      serverId: '0190a1b2-0000-7000-8000-000000000001', generation: 3,
      software: { template: 'simcraft', version: '1.0', build: '' }, resources: { cpuMillis: 500, memoryBytes: 1024, diskBytes: 0 },
      gamePort: 25570, desiredState: 'DESIRED_RUNTIME_STATE_RUNNING', restartPolicy: { maxRestarts: 3, windowSeconds: 60 },
      acknowledgedConditionIds: ['c1'], inNetwork: true, restartNonce: 2, sleep: null, wakeNonce: 0, templateJson: '{"id":"simcraft"}',
      plugins: [{ installationId: '0190a1b2-0000-7000-8000-0000000000aa', fileName: 'Vault-1.7.1.jar', sha256: 'a'.repeat(64), sizeBytes: 2048, pluginId: 'sample:vaultapi' }],
      network: { routes: [{ serverId: '0190a1b2-0000-7000-8000-000000000002', name: 'lobby', address: '10.0.0.2', port: 41566 }], lobbyServerId: '', forwardingSecret: 's3cret' },
      egressAllow: ['203.0.113.7:5432'],
    };

    it('sends the full desired state on connect and on each change, every field as given', async () => {
      const { nodeId, credential } = await enrollNode('desired');
      const first = connect(credential);
      const seen: DesiredState[] = [];
      first.onDesiredState((s) => seen.push(s));
      await waitFor(() => seen.length === 1 || undefined);
      expect(seen[0].servers).to.deep.equal([]);
      await waitConnection(nodeId, 'HEALTHY');
      const created = await createServer('wanted', nodeId);
      await waitFor(() => seen.length === 2 || undefined);
      expect(seen[1].servers.map((s) => [s.serverId, s.generation, s.gamePort])).to.deep.equal([[created.id, 1, created.gamePort]]);
      expect(seen[1].revision).to.be.above(seen[0].revision);

      first.stop();
      const again = connect(credential);
      const resent: DesiredState[] = [];
      again.onDesiredState((s) => resent.push(s));
      await waitFor(() => resent.length === 1 || undefined);
      expect(resent[0].servers).to.deep.equal(seen[1].servers);
      expect(h.t.controller.services.agents.sendDesiredState(nodeId, [server])).to.equal(true);
      await waitFor(() => resent.length === 2 || undefined);
      expect(resent[1].servers).to.deep.equal([server]);
    });

    it('correlates requests and answers, with parts, refusals, unsupported kinds and deadlines', async () => {
      const { nodeId, credential } = await enrollNode('requests');
      const client = connect(credential);
      client.handle('fileList', async ({ path }) => {
        if (path === 'missing') throw new AgentError('NOT_FOUND', 'no such directory');
        return { payload: 'fileEntries', fileEntries: { entries: [{ name: 'a.txt', path: `${path}/a.txt`, type: 'FILE', sizeBytes: 3, modifiedAt: '2030-01-01T00:00:00.000Z' }] } };
      });
      client.handle('fileRead', async (_req, ctx) => {
        ctx.sendPart({ payload: 'fileChunk', fileChunk: { offset: 0, data: Buffer.from('hel'), eof: false, totalBytes: 5 } });
        return { payload: 'fileChunk', fileChunk: { offset: 3, data: Buffer.from('lo'), eof: true, totalBytes: 5 } };
      });
      client.handle('consoleCommand', (_req, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({}))));
      await waitConnection(nodeId, 'HEALTHY');
      const agents = h.t.controller.services.agents;

      const [one, two] = await Promise.all([
        agents.request(nodeId, { body: 'fileList', fileList: { serverId: 's', path: 'one' } }),
        agents.request(nodeId, { body: 'fileList', fileList: { serverId: 's', path: 'two' } }),
      ]);
      expect(one.payload === 'fileEntries' && one.fileEntries.entries[0].path).to.equal('one/a.txt');
      expect(two.payload === 'fileEntries' && two.fileEntries.entries[0].path).to.equal('two/a.txt');

      const chunks: Buffer[] = [];
      const last = await agents.request(nodeId, { body: 'fileRead', fileRead: { serverId: 's', path: 'f', chunkBytes: 3, offset: 0, length: 0 } }, {
        onPart: (p) => p.payload === 'fileChunk' && chunks.push(p.fileChunk.data),
      });
      if (last.payload === 'fileChunk') chunks.push(last.fileChunk.data);
      expect(Buffer.concat(chunks).toString()).to.equal('hello');

      const refused = await agents.request(nodeId, { body: 'fileList', fileList: { serverId: 's', path: 'missing' } }).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(AgentRequestError);
      expect(refused).to.include({ code: 'NOT_FOUND' });
      const unsupported = await agents.request(nodeId, { body: 'propertiesGet', propertiesGet: { serverId: 's' } }).catch((e: unknown) => e);
      expect(unsupported).to.include({ code: 'UNSUPPORTED' });
      const late = await agents.request(nodeId, { body: 'consoleCommand', consoleCommand: { serverId: 's', command: 'list' } }, { timeoutMs: 150 }).catch((e: unknown) => e);
      expect(late).to.be.instanceOf(NodeUnavailableError);
      expect(late).to.include({ reason: 'deadline' });
      const offline = await agents.request('0190a1b2-0000-7000-8000-00000000ffff', { body: 'fileList', fileList: { serverId: 's', path: '.' } }).catch((e: unknown) => e);
      expect(offline).to.include({ reason: 'not_connected' });
    });

    it('applies server status to the server and relays console lines to listeners', async () => {
      const { nodeId, credential } = await enrollNode('relay');
      const client = connect(credential);
      await waitConnection(nodeId, 'HEALTHY');
      const created = await createServer('reported', nodeId);
      const lines: string[] = [];
      const offLines = h.t.controller.services.agents.onConsoleLine((id, l) => id === nodeId && lines.push(l.text));
      client.sendServerStatus({
        serverId: created.id, observedGeneration: 1, runtimeState: 'RUNTIME_STATE_STOPPED', installed: true, usage: { cpuMillis: 7, memoryBytes: 512, diskBytes: 2048 },
        conditions: [], ports: [], startedAt: '', removed: false, restarting: false, startedInNetwork: false, installError: '', lastCrash: null, portInUse: 0, pid: 0, players: { online: 3, max: 20 }, sleeping: null, lastWake: null,
      });
      client.sendConsoleLine({ serverId: created.id, text: 'Done (1.0s)!', atUnixMs: Date.now(), truncated: false, seq: 0 });
      const reported = await waitFor(async () => {
        const s = (await h.admin.get<ServerDetail>(`/servers/${created.id}`)).body;
        return s.phase === 'READY' ? s : undefined;
      }, { what: 'the report applied' });
      expect(reported).to.deep.include({ observedGeneration: 1, convergence: 'CONVERGED' });
      expect(reported.status).to.deep.include({ runtimeState: 'STOPPED', usage: { cpuMillis: 7, memoryBytes: 512, diskBytes: 2048 }, players: { online: 3, max: 20 } });
      expect(reported.playersOnline).to.equal(3);
      await waitFor(() => lines.length === 1 || undefined);
      expect(lines).to.deep.equal(['Done (1.0s)!']);
      offLines();
    });
  });

  it('exposes link metrics', async () => {
    const refused = connect('not-a-credential');
    const { credential, nodeId } = await enrollNode('metered');
    connect(credential);
    await waitConnection(nodeId, 'HEALTHY');
    // The hello sets lastHeartbeatAt already: the first heartbeat shows in the counter.
    const text = await waitFor(async () => {
      const metrics = (await h.t.api.get('/metrics')).text;
      return /^cairn_agent_heartbeats_total [1-9]/m.test(metrics) ? metrics : undefined;
    }, { what: 'the first heartbeat' });
    expect(text).to.match(/^cairn_agents_connected [1-9]/m);
    expect(text).to.match(/^cairn_nodes\{admin_state="ENABLED",connection_state="HEALTHY"\} [1-9]/m);
    expect(text).to.match(/^cairn_agent_heartbeats_total [1-9]/m);
    expect(text).to.match(/^cairn_agent_heartbeat_lag_seconds_count [1-9]/m);
    await waitFor(async () => /^cairn_agent_connections_refused_total\{reason="invalid_credential"\} [1-9]/m.test((await h.t.api.get('/metrics')).text) || undefined);
    expect(refused.connected).to.equal(false);
  });
});
