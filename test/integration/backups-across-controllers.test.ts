import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Static } from 'typebox';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import type { Backup, BackupDestination, EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { AgentProcess } from '../support/agent-process.js';
import { setUpAdminOf, startOnSharedStore, type ControllerProcess } from '../support/controller-process.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { TempDirs } from '../support/temp-dir.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';
import { writeWorld } from '../support/world-files.js';

type ClusterBody = Static<typeof Cluster>;
const MiB = 1024 * 1024;
const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--bind-address', '127.0.0.1'];

/**
 * Two Controllers on one FerretDB (or MONGODB_URI) database share the built-in destination (GridFS
 * in that database). A backup that B takes writes its blobs before its manifest; a backup deleted
 * through A meanwhile collects the destination's unreferenced blobs, which must not take B's.
 */
(testMongo ? describe : describe.skip)(`backups into a destination shared by two Controllers (${testMongo?.kind ?? 'no MongoDB-compatible server'})`, function () {
  this.timeout(240_000);
  const database = testMongo && freshTestDatabase(testMongo, 'cairn_backups_across');
  const dirs = new TempDirs();
  let agent: AgentProcess | undefined;
  let agentDir = '';
  let a: ControllerProcess;
  let b: ControllerProcess;
  let cookie = '';
  let serverId = '';
  let teamId = '';

  const apiOf = (c: ControllerProcess): ApiClient => c.api.withCookie(cookie);
  const rootOf = () => join(agentDir, 'servers', serverId, 'root');
  const backupOf = async (c: ControllerProcess, id: string) => (await apiOf(c).get<Backup>(`/backups/${id}`)).body;
  const ended = (c: ControllerProcess, id: string) => waitFor(async () => {
    const found = await backupOf(c, id);
    return found.state === 'SUCCEEDED' || found.state === 'FAILED' ? found : undefined;
  }, { timeoutMs: 120_000, what: `backup ${id} to end` });
  const takeThrough = async (c: ControllerProcess) => {
    const res = await apiOf(c).post<Backup>(`/servers/${serverId}/backups`, {});
    expect(res.status, res.text).to.equal(202);
    return res.body.id;
  };
  const hashes = async (paths: string[]) => new Map(await Promise.all(paths.map(async (p) => [p, createHash('sha256').update(await readFile(join(rootOf(), p))).digest('hex')] as const)));

  before(async () => {
    const first = await dirs.make('cairn-backups-across-');
    const secretsKeyFile = join(first, 'shared-secrets.key');
    a = await startOnSharedStore(first, secretsKeyFile, database!);
    cookie = (await setUpAdminOf(a, first)).cookie;
    teamId = (await apiOf(a).post<Team>('/teams', { name: 'Ops' })).body.id;
    b = await startOnSharedStore(await dirs.make('cairn-backups-across-'), secretsKeyFile, database!);
    const selfB = await waitFor(async () => (await apiOf(b).get<ClusterBody>('/cluster')).body.controllers.find((e) => e.httpAddress === `127.0.0.1:${b.httpPort}`)?.id,
      { timeoutMs: 20_000, what: 'B in GET /cluster' });
    const issued = (await apiOf(b).post<EnrollmentIssued>('/nodes', { name: 'node-b' })).body;
    agentDir = await dirs.make('cairn-backups-across-agent-');
    agent = AgentProcess.start({ grpcPort: b.grpcPort, dataDir: agentDir, gamePorts: await privateGamePorts(), enrollmentToken: issued.enrollmentToken, extra: agentArgs });
    await waitFor(async () => {
      const node = (await apiOf(b).get<Node>(`/nodes/${issued.node.id}`)).body;
      return node.status.connectionState === 'HEALTHY' && node.status.controllerId === selfB ? true : undefined;
    }, { timeoutMs: 60_000, what: 'node-b HEALTHY and driven by B' });
    const created = await apiOf(a).post<ServerDetail>('/servers', {
      name: 'kept', teamId, nodeId: issued.node.id, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 250, memoryBytes: GiB / 8 },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(apiOf(a), serverId, (s) => s.phase === 'READY', 'READY', 60_000);
  });

  after(async () => {
    await agent?.kill();
    if (agentDir) await killGames(agentDir);
    for (const c of [a as ControllerProcess | undefined, b as ControllerProcess | undefined]) await c?.kill();
    await database?.drop();
    await dirs.removeAll();
  });

  it('a backup asked through A, which does not drive the Node, is handed to B and taken', async () => {
    // A has no session of the Node's Agent: before the handoff it waited 2 min for one, then failed.
    const taken = await ended(a, await takeThrough(a));
    expect(taken.state, taken.error).to.equal('SUCCEEDED');
  });

  it('a NODE_DIRECTORY backup taken and deleted through A: kept on B\'s Node, pruned there through B', async () => {
    const path = await dirs.make('cairn-backups-across-node-dir-');
    const destination = await apiOf(a).post<BackupDestination>('/backup-destinations', { name: 'node-disk', kind: 'NODE_DIRECTORY', path });
    expect(destination.status, destination.text).to.equal(201);
    const res = await apiOf(a).post<Backup>(`/servers/${serverId}/backups`, { destinationId: destination.body.id });
    expect(res.status, res.text).to.equal(202);
    const taken = await ended(a, res.body.id);
    expect(taken.state, taken.error).to.equal('SUCCEEDED');
    const manifests = join(path, 'teams', teamId, 'manifests');
    expect(await readdir(manifests)).to.deep.equal([`${taken.id}.json`]);
    // A has no session of the Node's Agent: the prune goes through B (it used to fail as the Node not connected).
    const removed = await apiOf(a).delete(`/backups/${taken.id}`);
    expect(removed.status, removed.text).to.equal(204);
    expect(await readdir(manifests)).to.deep.equal([]);
  });

  it('a backup deleted through A while B writes one waits for it, and B\'s backup restores byte for byte', async () => {
    const old = await ended(a, await takeThrough(a));
    expect(old.state, old.error).to.equal('SUCCEEDED');
    const paths = (await writeWorld(rootOf(), 48 * MiB, MiB)).filter((p) => p.startsWith('world/region/'));
    const written = await hashes(paths);
    const taking = await takeThrough(b);
    await waitFor(async () => (await backupOf(b, taking)).state === 'RUNNING', { timeoutMs: 60_000, what: 'the backup through B to run' });
    const removed = await apiOf(a).delete(`/backups/${old.id}`);
    expect(removed.status, removed.text).to.equal(204);
    const answeredAt = Date.now();
    const taken = await ended(b, taking);
    expect(taken.state, taken.error).to.equal('SUCCEEDED');
    // The collection after the removal waited for B's backup: it could not see which blobs B had stored before B's manifest.
    expect(Date.parse(taken.finishedAt!), 'B\'s backup ended before A\'s removal answered').to.be.at.most(answeredAt);
    for (const path of paths) await rm(join(rootOf(), path));
    const restoring = await apiOf(a).post<ServerDetail>(`/backups/${taken.id}/restore`, {});
    expect(restoring.status, restoring.text).to.equal(202);
    const done = await waitForServer(apiOf(a), serverId, (s) => s.phase === 'READY' && !s.workflow, 'READY after the restore', 120_000);
    expect(done.conditions.filter((c) => c.reason === 'RESTORE_FAILED'), JSON.stringify(done.conditions)).to.deep.equal([]);
    expect(await hashes(paths)).to.deep.equal(written);
  });
});
