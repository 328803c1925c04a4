import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Static } from 'typebox';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { AgentProcess } from '../support/agent-process.js';
import { setUpAdminOf, startOnSharedStore, type ControllerProcess } from '../support/controller-process.js';
import { TempDirs } from '../support/temp-dir.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

type ClusterBody = Static<typeof Cluster>;
const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];
const succeeded = (metrics: string) => Number(/^cairn_workflows_total\{kind="MIGRATE",result="succeeded"\} (\d+)/m.exec(metrics)?.[1] ?? 'NaN');

/**
 * Two Controllers on one FerretDB (or MONGODB_URI) database, each driving one real Agent's Node: a
 * running server moves between the two Nodes. The run is the work of the Controller that drives
 * the server's Node (a migration asked of the other is handed to it), and it asks the target's
 * Agent through the Controller that drives the target, hearing the target's reports from the store.
 */
(testMongo ? describe : describe.skip)(`migration between Nodes of different Controllers (${testMongo?.kind ?? 'no MongoDB-compatible server'})`, function () {
  this.timeout(240_000);
  const database = testMongo && freshTestDatabase(testMongo, 'cairn_migrate_across');
  const dirs = new TempDirs();
  const agents: { agent: AgentProcess; dir: string }[] = [];
  let a: ControllerProcess;
  let b: ControllerProcess;
  let cookie = '';
  let teamId = '';
  let nodeA = '';
  let nodeB = '';
  let serverId = '';
  const marker = randomBytes(16).toString('hex');

  const apiOf = (c: ControllerProcess): ApiClient => c.api.withCookie(cookie);
  const tempDir = (prefix: string) => dirs.make(prefix);
  const startController = (dataDir: string, secretsKeyFile: string) => startOnSharedStore(dataDir, secretsKeyFile, database!);
  /** Enrolls a Node through `c` with an Agent that dials `c`, and waits until `c` drives it. */
  async function nodeDrivenBy(c: ControllerProcess, name: string): Promise<string> {
    const issued = (await apiOf(c).post<EnrollmentIssued>('/nodes', { name })).body;
    const dir = await tempDir('cairn-migrate-across-agent-');
    agents.push({ dir, agent: AgentProcess.start({ grpcPort: c.grpcPort, dataDir: dir, gamePorts: await privateGamePorts(), enrollmentToken: issued.enrollmentToken, extra: agentArgs }) });
    const self = await controllerIdOf(c);
    await waitFor(async () => {
      const node = (await apiOf(c).get<Node>(`/nodes/${issued.node.id}`)).body;
      return node.status.connectionState === 'HEALTHY' && node.status.controllerId === self ? true : undefined;
    }, { timeoutMs: 60_000, what: `${name} HEALTHY and driven by the Controller its Agent dials` });
    return issued.node.id;
  }
  async function controllerIdOf(c: ControllerProcess): Promise<string> {
    return waitFor(async () => (await apiOf(c).get<ClusterBody>('/cluster')).body.controllers.find((e) => e.httpAddress === `127.0.0.1:${c.httpPort}`)?.id,
      { timeoutMs: 20_000, what: 'the Controller in GET /cluster' });
  }
  async function driverOf(nodeId: string): Promise<string | undefined> {
    return (await apiOf(a).get<Node>(`/nodes/${nodeId}`)).body.status.controllerId;
  }
  async function markerOn(c: ControllerProcess): Promise<string> {
    const read = await apiOf(c).get(`/servers/${serverId}/files/content?path=moved.txt`);
    expect(read.status, read.text).to.equal(200);
    return read.text;
  }

  before(async () => {
    const first = await tempDir('cairn-migrate-across-');
    const secretsKeyFile = join(first, 'shared-secrets.key');
    a = await startController(first, secretsKeyFile);
    cookie = (await setUpAdminOf(a, first)).cookie;
    teamId = (await apiOf(a).post<Team>('/teams', { name: 'Ops' })).body.id;
    nodeA = await nodeDrivenBy(a, 'node-a');
    b = await startController(await tempDir('cairn-migrate-across-'), secretsKeyFile);
    nodeB = await nodeDrivenBy(b, 'node-b');
    const created = await apiOf(a).post<ServerDetail>('/servers', {
      name: 'mover', teamId, nodeId: nodeA, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 250, memoryBytes: GiB / 8 },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(apiOf(a), serverId, (s) => s.phase === 'READY', 'READY', 60_000);
    expect((await apiOf(a).post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(apiOf(a), serverId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 60_000);
    const put = await apiOf(a).request('PUT', `/servers/${serverId}/files/content?path=moved.txt`, { rawBody: Buffer.from(marker) });
    expect(put.status, put.text).to.equal(204);
  });

  after(async () => {
    for (const { agent, dir } of agents) {
      await agent.kill();
      await killGames(dir);
    }
    for (const c of [a as ControllerProcess | undefined, b as ControllerProcess | undefined]) await c?.kill();
    await database?.drop();
    await dirs.removeAll();
  });

  it('each Node is driven by the Controller its Agent dialled', async () => {
    expect(await driverOf(nodeA)).to.equal(await controllerIdOf(a));
    expect(await driverOf(nodeB)).to.equal(await controllerIdOf(b));
  });

  it('asked through B, moves the server from A\'s Node to B\'s: the run is A\'s, the server runs on node-b with its files', async () => {
    const before = { a: succeeded((await a.api.get('/metrics')).text), b: succeeded((await b.api.get('/metrics')).text) };
    const begun = await apiOf(b).post<ServerDetail>(`/servers/${serverId}/migrate`, { nodeId: nodeB });
    expect(begun.status, begun.text).to.equal(202);
    expect(begun.body.phase).to.equal('MIGRATING');
    const moved = await waitForServer(apiOf(b), serverId, (s) => s.phase === 'READY' && !s.workflow, 'the migration ended', 180_000);
    expect(moved.conditions.filter((c) => c.reason === 'MIGRATION_FAILED'), JSON.stringify(moved.conditions)).to.deep.equal([]);
    expect(moved.nodeId).to.equal(nodeB);
    await waitForServer(apiOf(a), serverId, (s) => s.nodeId === nodeB && s.status.runtimeState === 'RUNNING', 'RUNNING on node-b', 60_000);
    expect(await markerOn(a), 'read through A, which forwards to B').to.equal(marker);
    expect(succeeded((await a.api.get('/metrics')).text), 'A, which drives the source, ran it').to.equal(before.a + 1);
    expect(succeeded((await b.api.get('/metrics')).text), 'B handed it off').to.equal(before.b);
  });

  it('asked through B, which now drives the source, moves it back to A\'s Node: the target asked through A', async () => {
    const before = succeeded((await b.api.get('/metrics')).text);
    const begun = await apiOf(b).post<ServerDetail>(`/servers/${serverId}/migrate`, { nodeId: nodeA });
    expect(begun.status, begun.text).to.equal(202);
    const moved = await waitForServer(apiOf(a), serverId, (s) => s.phase === 'READY' && !s.workflow, 'the migration ended', 180_000);
    expect(moved.conditions.filter((c) => c.reason === 'MIGRATION_FAILED'), JSON.stringify(moved.conditions)).to.deep.equal([]);
    expect(moved.nodeId).to.equal(nodeA);
    await waitForServer(apiOf(b), serverId, (s) => s.nodeId === nodeA && s.status.runtimeState === 'RUNNING', 'RUNNING on node-a', 60_000);
    expect(await markerOn(b)).to.equal(marker);
    expect(succeeded((await b.api.get('/metrics')).text)).to.equal(before + 1);
  });
});
