import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Static } from 'typebox';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import { AgentProcess } from '../support/agent-process.js';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { setUpAdminOf, startOnSharedStore, type ControllerProcess } from '../support/controller-process.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { TcpBalancer } from '../support/tcp-balancer.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';
import type { PortRange } from '../../src/shared/link/messages.js';

type ClusterBody = Static<typeof Cluster>;
const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 250, memoryBytes: GiB / 8 };
const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];
/**
 * Two Nodes handed over one per renewal round (5 s) at the default lease timing, the joining
 * Controller's claim at its next round (up to 5 s later), the Agent's redial (2 s): about 17 s,
 * with room for a loaded machine.
 */
const handedOverWithinMs = 60_000;

interface Host {
  nodeId: string;
  dir: string;
  gamePorts: PortRange;
  agent: AgentProcess;
  serverId: string;
}

/**
 * One Controller with four real Agents (a simcraft game on each) on one FerretDB (or MONGODB_URI)
 * database, then a second Controller: the first hands two Nodes over, one per round, and half of
 * the fleet-wide jobs; each Node ends driven by exactly one Controller, its Agent sent there by
 * `cairn-owner`, and no game restarts.
 */
(testMongo ? describe : describe.skip)(`handing Nodes over to a Controller that joins (${testMongo?.kind ?? 'no MongoDB-compatible server'})`, function () {
  this.timeout(240_000);
  const database = testMongo && freshTestDatabase(testMongo, 'cairn_handover');
  const controllers: ControllerProcess[] = [];
  const dataDirs: string[] = [];
  const hosts: Host[] = [];
  let balancer: TcpBalancer;
  let cookie: string;
  let secretsKeyFile: string;

  const apiOf = (c: ControllerProcess): ApiClient => c.api.withCookie(cookie);
  const clusterOn = async (c: ControllerProcess) => {
    const res = await apiOf(c).get<ClusterBody>('/cluster');
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const processOf = (cluster: ClusterBody, id: string | undefined) => {
    const entry = cluster.controllers.find((c) => c.id === id);
    return controllers.find((c) => entry?.httpAddress === `127.0.0.1:${c.httpPort}`);
  };
  /** The Controller driving the Node: it holds the lease, the Agent is connected to it, and an operation reaches the Node. */
  const drivenBy = async (host: Host, via: ControllerProcess) => {
    const id = (await apiOf(via).get<Node>(`/nodes/${host.nodeId}`)).body.status.controllerId;
    const holder = processOf(await clusterOn(via), id);
    if (!holder) return undefined;
    const node = (await apiOf(holder).get<Node>(`/nodes/${host.nodeId}`)).body;
    if (node.status.connectionState !== 'HEALTHY') return undefined;
    if (host.serverId && (await apiOf(holder).get(`/servers/${host.serverId}/files?path=.`)).status !== 200) return undefined;
    return holder;
  };
  const gamePidOf = async (host: Host) =>
    (JSON.parse(await readFile(join(host.dir, 'servers', host.serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;

  async function startController(dataDir: string): Promise<ControllerProcess> {
    const c = await startOnSharedStore(dataDir, secretsKeyFile, database!);
    controllers.push(c);
    return c;
  }

  before(async () => {
    const first = await mkdtemp(join(tmpdir(), 'cairn-handover-'));
    dataDirs.push(first);
    secretsKeyFile = join(first, 'shared-secrets.key');
    const c1 = await startController(first);
    cookie = (await setUpAdminOf(c1, first)).cookie;
    // Agents dial the first Controller only: those handed over are sent on by `cairn-owner`.
    balancer = await TcpBalancer.start([c1.grpcPort]);
    const teamId = (await apiOf(c1).post<Team>('/teams', { name: 'Ops' })).body.id;
    for (const name of ['node-a', 'node-b', 'node-c', 'node-d']) {
      const issued = (await apiOf(c1).post<EnrollmentIssued>('/nodes', { name })).body;
      const dir = await mkdtemp(join(tmpdir(), 'cairn-handover-agent-'));
      const gamePorts = await privateGamePorts();
      const agent = AgentProcess.start({ grpcPort: balancer.port, dataDir: dir, gamePorts, enrollmentToken: issued.enrollmentToken, extra: agentArgs });
      hosts.push({ nodeId: issued.node.id, dir, gamePorts, agent, serverId: '' });
    }
    for (const host of hosts) {
      await waitFor(() => drivenBy(host, c1), { timeoutMs: 60_000, what: `${host.nodeId} driven` });
      const created = await apiOf(c1).post<ServerDetail>('/servers', { name: `game-${host.nodeId.slice(-4)}`, teamId, nodeId: host.nodeId, software: simcraft, resources: small });
      expect(created.status, created.text).to.equal(201);
      host.serverId = created.body.id;
    }
    for (const host of hosts) {
      await waitForServer(apiOf(c1), host.serverId, (s) => s.phase === 'READY', `${host.serverId} READY`, 60_000);
      const started = await apiOf(c1).post(`/servers/${host.serverId}/start`);
      expect(started.status, started.text).to.equal(202);
    }
    for (const host of hosts) await waitForServer(apiOf(c1), host.serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', `${host.serverId} RUNNING`, 60_000);
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

  it('gives a joining Controller two of four Nodes and three of six jobs within a bound, no game restarted', async () => {
    const [c1] = controllers;
    const alone = await clusterOn(c1);
    expect(alone.controllers.map((e) => ({ nodes: e.nodes, jobs: e.jobs?.length }))).to.deep.equal([{ nodes: 4, jobs: 6 }]);
    const pids = new Map(await Promise.all(hosts.map(async (h) => [h.serverId, await gamePidOf(h)] as const)));
    const dir = await mkdtemp(join(tmpdir(), 'cairn-handover-'));
    dataDirs.push(dir);
    const joinedAt = Date.now();
    const c2 = await startController(dir);
    const listeningAt = Date.now();
    const shared = await waitFor(async () => {
      const cluster = await clusterOn(c2);
      const even = cluster.controllers.length === 2 && cluster.controllers.every((e) => e.nodes === 2 && e.jobs?.length === 3);
      if (!even) return undefined;
      const holders = await Promise.all(hosts.map((h) => drivenBy(h, c1)));
      return holders.every((h) => h !== undefined) ? holders : undefined;
    }, { timeoutMs: handedOverWithinMs, intervalMs: 250, what: 'two Nodes and three jobs each, every Node driven' });
    const doneAt = Date.now();
    console.log(`      joining Controller got its share ${((doneAt - listeningAt) / 1000).toFixed(1)} s after it listened (${((doneAt - joinedAt) / 1000).toFixed(1)} s after its process started)`);
    expect(shared.filter((h) => h === c2), 'Nodes driven by the joining Controller').to.have.length(2);
    // The jobs each Controller lists are those it runs: six in all, each once.
    const cluster = await clusterOn(c1);
    expect(cluster.controllers.flatMap((e) => e.jobs ?? []).sort()).to.deep.equal(['audit-prune', 'backup-scheduler', 'catalog-sync', 'software-sync', 'task-schedules', 'webhook-deliveries']);
    for (const host of hosts) {
      expect(await gamePidOf(host), 'the game kept running').to.equal(pids.get(host.serverId));
      // A Node handed over is driven by one Controller at a time: its Agent never had to refuse an older term.
      expect(host.agent.stderr).to.not.include('stale_term_refused');
    }
    const redirected = hosts.filter((h) => h.agent.stderr.includes('"event":"redirected"'));
    expect(redirected.length, 'Agents sent to the joining Controller').to.be.at.least(2);
    for (const host of hosts) {
      const server = (await apiOf(c2).get<ServerDetail>(`/servers/${host.serverId}`)).body;
      expect(server.status.runtimeState, `${host.serverId} still RUNNING`).to.equal('RUNNING');
    }
  });
});
