import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { AgentProcess } from '../support/agent-process.js';
import { setUpAdminOf, startOnSharedStore, type ControllerProcess } from '../support/controller-process.js';
import { TempDirs } from '../support/temp-dir.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * Any Controller serves any request: two Controllers on one FerretDB (or MONGODB_URI) database,
 * one Agent dialling A (so A holds its Node's lease). Every request goes to B, which drives no
 * Node: it places on A's Node from the stored status, shows the Node connected, and its desired
 * changes reach the Agent through the store and A.
 */
(testMongo ? describe : describe.skip)(`desired changes through another Controller (${testMongo?.kind ?? 'no MongoDB-compatible server'})`, function () {
  this.timeout(180_000);
  const database = testMongo && freshTestDatabase(testMongo, 'cairn_relay');
  const dirs = new TempDirs();
  let a: ControllerProcess;
  let b: ControllerProcess;
  let agent: AgentProcess;
  let agentDir: string;
  let cookie: string;
  let teamId: string;
  let nodeId: string;
  let serverId: string;

  const apiOf = (c: ControllerProcess): ApiClient => c.api.withCookie(cookie);
  const tempDir = (prefix: string) => dirs.make(prefix);
  const startController = (dataDir: string, secretsKeyFile: string) => startOnSharedStore(dataDir, secretsKeyFile, database!);
  const noUnreachable = (s: ServerDetail) => !s.conditions.some((c) => c.reason === 'NODE_UNREACHABLE');

  before(async () => {
    const first = await tempDir('cairn-relay-');
    const secretsKeyFile = join(first, 'shared-secrets.key');
    a = await startController(first, secretsKeyFile);
    cookie = (await setUpAdminOf(a, first)).cookie;
    teamId = (await apiOf(a).post<Team>('/teams', { name: 'Ops' })).body.id;
    const issued = (await apiOf(a).post<EnrollmentIssued>('/nodes', { name: 'node-a' })).body;
    nodeId = issued.node.id;
    agentDir = await tempDir('cairn-relay-agent-');
    agent = AgentProcess.start({ grpcPort: a.grpcPort, dataDir: agentDir, gamePorts: await privateGamePorts(), enrollmentToken: issued.enrollmentToken, extra: agentArgs });
    await waitFor(async () => (await apiOf(a).get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 60_000, what: 'the Node HEALTHY on A' });
    b = await startController(await tempDir('cairn-relay-'), secretsKeyFile);
  });

  after(async () => {
    // Undefined only when `before` failed first.
    await (agent as AgentProcess | undefined)?.kill();
    if (agentDir) await killGames(agentDir);
    for (const c of [a as ControllerProcess | undefined, b as ControllerProcess | undefined]) await c?.kill();
    await database?.drop();
    await dirs.removeAll();
  });

  it('shows A\'s Node on B as A stored it: connected, driven by A, accepting placements', async () => {
    const onA = (await apiOf(a).get<Node>(`/nodes/${nodeId}`)).body;
    const onB = await waitFor(async () => {
      const node = (await apiOf(b).get<Node>(`/nodes/${nodeId}`)).body;
      return node.status.connectionState === 'HEALTHY' && node.status.controllerId ? node : undefined;
    }, { timeoutMs: 20_000, what: 'the Node HEALTHY on B' });
    expect(onB.status.controllerId).to.equal(onA.status.controllerId);
    expect(onB.acceptsPlacements).to.equal(true);
    // B drives nothing: an operation on the Node's servers is not answered by B itself.
    const metrics = await b.api.get('/metrics');
    expect(metrics.text).to.match(/^cairn_leases_held 0$/m);
  });

  it('creates a server through B on A\'s Node, which installs it READY, shown connected on B', async () => {
    const created = await apiOf(b).post<ServerDetail>('/servers', { name: 'relayed', teamId, software: simcraft, resources: { cpuMillis: 250, memoryBytes: GiB / 8 } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.nodeId, 'placed on the only Node, driven by A').to.equal(nodeId);
    serverId = created.body.id;
    const ready = await waitForServer(apiOf(b), serverId, (s) => s.phase === 'READY', 'READY on B', 60_000);
    expect(noUnreachable(ready), JSON.stringify(ready.conditions)).to.equal(true);
  });

  it('starts the server through B: it runs on the Agent', async () => {
    const started = await apiOf(b).post(`/servers/${serverId}/start`);
    expect(started.status, started.text).to.equal(202);
    const running = await waitForServer(apiOf(b), serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING on B', 60_000);
    expect(noUnreachable(running)).to.equal(true);
    const run = JSON.parse(await readFile(join(agentDir, 'servers', serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number };
    expect(() => process.kill(run.gamePid, 0), 'the game runs on the Agent\'s host').to.not.throw();
  });

  it('brings each PATCH through B to the Agent (timed from B\'s answer to the Agent\'s report of the new generation)', async () => {
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      // A resize restarts the game: A writes each step of that as its Agent reports it while the next PATCH is written
      // through B, two Controllers writing one record at once (FerretDB lost one of two such writes before versions were claimed).
      const patched = await apiOf(b).patch<ServerDetail>(`/servers/${serverId}`, { resources: { cpuMillis: 250 + 10 * ((i % 2) + 1), memoryBytes: GiB / 8 } });
      expect(patched.status, patched.text).to.equal(200);
      const answeredAt = Date.now();
      const generation = patched.body.generation;
      // A writes what its Agent reports: the Agent took the change once the stored observed generation is the new one.
      await waitFor(async () => {
        const res = await apiOf(a).get<ServerDetail>(`/servers/${serverId}`);
        return res.status === 200 && res.body.observedGeneration >= generation;
      }, { timeoutMs: 20_000, intervalMs: 10, what: `generation ${generation} observed` });
      delays.push(Date.now() - answeredAt);
    }
    const sorted = [...delays].sort((x, y) => x - y);
    console.log(`      B's 2xx → the Agent's report of the change on A's record: p50 ${percentile(sorted, 50)} ms, max ${sorted[sorted.length - 1]} ms (${sorted.length} PATCHes)`);
    expect(sorted[sorted.length - 1]).to.be.below(5_000);
  });

  it('stops and deletes the server through B: the Agent stops the game and removes it', async () => {
    // The last resize restarts the game: its run is read once it runs again.
    await waitForServer(apiOf(b), serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED' && s.markers.length === 0, 'RUNNING again on B', 60_000);
    const run = JSON.parse(await readFile(join(agentDir, 'servers', serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number };
    const stopped = await apiOf(b).post(`/servers/${serverId}/stop`);
    expect(stopped.status, stopped.text).to.equal(202);
    await waitForServer(apiOf(b), serverId, (s) => s.status.runtimeState === 'STOPPED' && s.convergence === 'CONVERGED', 'STOPPED on B', 60_000);
    await waitFor(() => {
      try {
        process.kill(run.gamePid, 0);
        return false;
      } catch {
        return true;
      }
    }, { timeoutMs: 20_000, what: 'the game process gone' });
    const deleted = await apiOf(b).delete(`/servers/${serverId}`);
    expect(deleted.status, deleted.text).to.be.oneOf([202, 204]);
    await waitFor(async () => (await apiOf(b).get(`/servers/${serverId}`)).status === 404, { timeoutMs: 60_000, what: 'the server gone (removed by the Agent)' });
  });

  it('applies a Node disabled and enabled through B on A, which drives it', async () => {
    for (const [action, accepts] of [['disable', false], ['enable', true]] as const) {
      const res = await apiOf(b).post<Node>(`/nodes/${nodeId}/${action}`);
      expect(res.status, res.text).to.equal(200);
      // A's view of a Node it drives is its live actor's: it follows the record within a lease tick.
      await waitFor(async () => (await apiOf(a).get<Node>(`/nodes/${nodeId}`)).body.acceptsPlacements === accepts, { timeoutMs: 15_000, what: `${action}d on A` });
    }
  });
});
