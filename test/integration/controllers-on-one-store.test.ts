import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import type { Static } from 'typebox';
import { AgentProcess } from '../support/agent-process.js';
import { setUpAdminOf, startOnSharedStore, type ControllerProcess } from '../support/controller-process.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { PortRange } from '../../src/shared/link/messages.js';
import type { ApiClient } from '../support/http.js';
import { TcpBalancer } from '../support/tcp-balancer.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

type ClusterBody = Static<typeof Cluster>;
const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 250, memoryBytes: GiB / 8 };
const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];
const leaseOrLink = /"event":"(lease_[a-z_]+|leases_lost|agent_[a-z_]+)"/;
const agentLink = /"event":"(connected|disconnected|redirected|lease_term_raised|controller_silent|reconnecting)"/;
/** The contract's promise for a Controller killed without warning. */
const failoverWithinMs = 25_000;

interface Host {
  nodeId: string;
  dir: string;
  gamePorts: PortRange;
  agent: AgentProcess;
  serverId: string;
}

/**
 * Three Controllers on one FerretDB (or MONGODB_URI) database behind a TCP load balancer, two real
 * Agents dialling the balancer, a simcraft game on each Node. Each Node is driven by exactly one
 * Controller (the holder of its lease); an Agent reaching another is sent to the holder; a
 * Controller killed with SIGKILL has its Nodes driven by another within 25 s, games untouched.
 */
(testMongo ? describe : describe.skip)(`several Controllers on one store (${testMongo?.kind ?? 'no MongoDB-compatible server'})`, function () {
  this.timeout(180_000);
  const database = testMongo && freshTestDatabase(testMongo, 'cairn_cluster');
  const controllers: ControllerProcess[] = [];
  const dataDirs: string[] = [];
  const hosts: Host[] = [];
  let balancer: TcpBalancer;
  let cookie: string;
  let secretsKeyFile: string;

  const apiOf = (c: ControllerProcess): ApiClient => c.api.withCookie(cookie);
  const live = () => controllers.filter((c) => c.child.exitCode === null && c.child.signalCode === null);
  const nodeOn = async (c: ControllerProcess, nodeId: string) => (await apiOf(c).get<Node>(`/nodes/${nodeId}`)).body;
  const clusterOn = async (c: ControllerProcess) => {
    const res = await apiOf(c).get<ClusterBody>('/cluster');
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  /** The Controller process whose id drives the Node now, by GET /cluster on `via`. */
  const holderOf = async (nodeId: string, via: ControllerProcess) => {
    const id = (await nodeOn(via, nodeId)).status.controllerId;
    if (!id) return undefined;
    const entry = (await clusterOn(via)).controllers.find((c) => c.id === id);
    return live().find((c) => entry?.httpAddress === `127.0.0.1:${c.httpPort}`);
  };
  /** Driven: a live Controller holds the lease, the Agent is connected to it, and an operation reaches the Node. */
  const drivenBy = async (host: Host, via: ControllerProcess) => {
    const holder = await holderOf(host.nodeId, via);
    if (!holder) return undefined;
    const node = await nodeOn(holder, host.nodeId);
    if (node.status.connectionState !== 'HEALTHY') return undefined;
    if (host.serverId && (await apiOf(holder).get(`/servers/${host.serverId}/files?path=.`)).status !== 200) return undefined;
    return holder;
  };
  /**
   * Every Node held, none by a Controller above its share (one each, with two Nodes): no hand-back is due, so a
   * Node's holder stays put while a test reasons about it. A Controller that gained a Node at its Agent's hello
   * while holding its share hands one back at its next round, and its busy Nodes (a server installing) only later.
   */
  const balanced = async (via: ControllerProcess) => {
    const cluster = await clusterOn(via);
    const held = cluster.controllers.map((e) => e.nodes);
    return held.reduce((sum, n) => sum + n, 0) === hosts.length && held.every((n) => n <= 1) ? cluster : undefined;
  };
  const gamePidOf = async (host: Host) =>
    (JSON.parse(await readFile(join(host.dir, 'servers', host.serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;

  /** Where the Node's lease and its Agent's link went, from every Controller's log and the Agent's: a failure on CI says why. */
  const linkStory = (host: Host) => {
    const lines = controllers.flatMap((c) => c.stderr.split('\n').filter((l) => l.includes(host.nodeId) && leaseOrLink.test(l)).map((l) => `controller :${c.grpcPort} ${l}`));
    const agent = host.agent.stderr.split('\n').filter((l) => agentLink.test(l));
    return ['', ...lines.slice(-30), ...agent.slice(-20).map((l) => `agent ${l}`)].join('\n');
  };

  async function startController(dataDir: string): Promise<ControllerProcess> {
    const c = await startOnSharedStore(dataDir, secretsKeyFile, database!);
    controllers.push(c);
    return c;
  }

  before(async () => {
    const first = await mkdtemp(join(tmpdir(), 'cairn-cluster-'));
    dataDirs.push(first);
    secretsKeyFile = join(first, 'shared-secrets.key');
    const c1 = await startController(first);
    cookie = (await setUpAdminOf(c1, first)).cookie;
    for (let i = 0; i < 2; i++) {
      const dir = await mkdtemp(join(tmpdir(), 'cairn-cluster-'));
      dataDirs.push(dir);
      await startController(dir);
    }
    balancer = await TcpBalancer.start(controllers.map((c) => c.grpcPort));
    const teamId = (await apiOf(c1).post<Team>('/teams', { name: 'Ops' })).body.id;
    for (const name of ['node-a', 'node-b']) {
      const issued = (await apiOf(c1).post<EnrollmentIssued>('/nodes', { name })).body;
      const dir = await mkdtemp(join(tmpdir(), 'cairn-cluster-agent-'));
      const gamePorts = await privateGamePorts();
      const agent = AgentProcess.start({ grpcPort: balancer.port, dataDir: dir, gamePorts, enrollmentToken: issued.enrollmentToken, extra: agentArgs });
      hosts.push({ nodeId: issued.node.id, dir, gamePorts, agent, serverId: '' });
    }
    for (const host of hosts) {
      const holder = await waitFor(() => drivenBy(host, c1), { timeoutMs: 60_000, what: `${host.nodeId} driven` });
      const created = await apiOf(holder).post<ServerDetail>('/servers', { name: `game-${host.nodeId.slice(-4)}`, teamId, nodeId: host.nodeId, software: simcraft, resources: small });
      expect(created.status, created.text).to.equal(201);
      host.serverId = created.body.id;
      await waitForServer(apiOf(holder), host.serverId, (s) => s.phase === 'READY', `${host.serverId} READY`, 60_000);
      const started = await apiOf(holder).post(`/servers/${host.serverId}/start`);
      expect(started.status, started.text).to.equal(202);
      await waitForServer(apiOf(holder), host.serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', `${host.serverId} RUNNING`, 60_000);
    }
    await waitFor(() => balanced(c1), { timeoutMs: 30_000, what: 'the Nodes shared out, one a Controller', explain: () => hosts.map(linkStory).join('\n') });
  });

  after(async () => {
    for (const host of hosts) {
      await host.agent.kill();
      await killGames(host.dir);
      await rm(host.dir, { recursive: true, force: true });
    }
    await Promise.all(controllers.map((c) => c.kill()));
    // Undefined only when `before` failed first.
    await (balancer as TcpBalancer | undefined)?.close();
    await database?.drop();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  it('lists every Controller on any of them, and each Node is driven by exactly one', async () => {
    for (const c of controllers) {
      const cluster = await clusterOn(c);
      expect(cluster.controllers.map((e) => e.httpAddress).sort()).to.deep.equal(controllers.map((p) => `127.0.0.1:${p.httpPort}`).sort());
      expect(cluster.controllers.reduce((sum, e) => sum + e.nodes, 0)).to.equal(hosts.length);
      for (const e of cluster.controllers) expect(Date.parse(e.lastSeenAt)).to.be.at.least(Date.parse(e.startedAt) - 5_000);
    }
    for (const host of hosts) {
      const ids = new Set(await Promise.all(controllers.map(async (c) => (await nodeOn(c, host.nodeId)).status.controllerId)));
      expect([...ids], `${host.nodeId}'s controllerId on every Controller`).to.have.length(1);
      const holder = (await holderOf(host.nodeId, controllers[0]))!;
      // The others do not drive it (no session there): they forward an operation on its server to the holder.
      for (const other of controllers.filter((c) => c !== holder)) {
        expect((await apiOf(other).get(`/servers/${host.serverId}/files?path=.`)).status, 'forwarded by a Controller not holding the Node').to.equal(200);
      }
    }
    const metrics = await controllers[0].api.get('/metrics');
    expect(metrics.text).to.match(/^cairn_leases_held \d+$/m).and.match(/^cairn_lease_changes_total\{change="gained"\} \d+$/m);
  });

  it('changes a Node created through another Controller after it started: disable, enable and revoke answer 200, not 404', async () => {
    const [a, b, c] = controllers;
    const created = await apiOf(a).post<EnrollmentIssued>('/nodes', { name: 'made-on-a' });
    expect(created.status, created.text).to.equal(201);
    const nodeId = created.body.node.id;
    const disabled = await apiOf(b).post<Node>(`/nodes/${nodeId}/disable`);
    expect(disabled.status, disabled.text).to.equal(200);
    expect(disabled.body.adminState).to.equal('DISABLED');
    expect((await nodeOn(a, nodeId)).adminState, 'on the Controller that created it').to.equal('DISABLED');
    const enabled = await apiOf(c).post<Node>(`/nodes/${nodeId}/enable`);
    expect(enabled.status, enabled.text).to.equal(200);
    expect(enabled.body.adminState).to.equal('ENABLED');
    const revoked = await apiOf(b).post<Node>(`/nodes/${nodeId}/revoke`);
    expect(revoked.status, revoked.text).to.equal(200);
    expect((await nodeOn(c, nodeId)).adminState).to.equal('REVOKED');
    const deleted = await apiOf(c).delete(`/nodes/${nodeId}`);
    expect(deleted.status, deleted.text).to.equal(204);
    expect((await apiOf(a).get(`/nodes/${nodeId}`)).status).to.equal(404);
  });

  it('sends an Agent that reaches another Controller to the holder of its Node', async () => {
    const host = hosts[0];
    const holder = (await holderOf(host.nodeId, controllers[0]))!;
    const other = controllers.find((c) => c !== holder)!;
    balancer.prefer(other.grpcPort);
    await host.agent.kill();
    host.agent = AgentProcess.start({ grpcPort: balancer.port, dataDir: host.dir, gamePorts: host.gamePorts, extra: agentArgs });
    await waitFor(() => host.agent.stderr.includes('"event":"redirected"'), { timeoutMs: 60_000, what: 'the Agent redirected', explain: () => linkStory(host) });
    expect(host.agent.stderr).to.include(`"owner":"127.0.0.1:${holder.grpcPort}"`);
    balancer.prefer(undefined);
    expect(await waitFor(() => drivenBy(host, other), { timeoutMs: 30_000, what: 'driven again' })).to.equal(holder);
  });

  it('drives a killed Controller\'s Nodes from another within 25 s, without restarting a game', async () => {
    const victim = (await holderOf(hosts[1].nodeId, controllers[0]))!;
    const orphaned = [];
    for (const host of hosts) if ((await holderOf(host.nodeId, victim)) === victim) orphaned.push(host);
    const pids = new Map(await Promise.all(hosts.map(async (h) => [h.serverId, await gamePidOf(h)] as const)));
    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    const survivor = live()[0];
    const times: number[] = [];
    await Promise.all(orphaned.map(async (host) => {
      const holder = await waitFor(() => drivenBy(host, survivor), { timeoutMs: failoverWithinMs + 10_000, intervalMs: 100, what: `${host.nodeId} driven again` });
      times.push(Date.now() - killedAt);
      expect(holder).to.not.equal(victim);
    }));
    console.log(`      failover after SIGKILL: ${times.map((t) => `${(t / 1000).toFixed(1)} s`).join(', ')} (${orphaned.length} Node(s))`);
    for (const t of times) expect(t).to.be.at.most(failoverWithinMs);
    for (const host of hosts) expect(await gamePidOf(host), 'the game kept running').to.equal(pids.get(host.serverId));
    // The survivor that took the orphan at its Agent's hello may hold both for a round before it hands one back.
    const cluster = await waitFor(() => balanced(survivor), { timeoutMs: 30_000, what: 'the Nodes shared out between the survivors', explain: () => hosts.map(linkStory).join('\n') });
    expect(cluster.controllers).to.have.length(2);
  });
});
