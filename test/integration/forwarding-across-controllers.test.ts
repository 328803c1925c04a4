import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Static } from 'typebox';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import type { ConsoleStreamEvent, EnrollmentIssued, FileList, Node, ServerDetail, Team } from '../support/api-types.js';
import { AgentProcess } from '../support/agent-process.js';
import { ControllerProcess, setUpAdminOf } from '../support/controller-process.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { openSse } from '../support/sse.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

type ClusterBody = Static<typeof Cluster>;
const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * Two Controllers on one FerretDB (or MONGODB_URI) database and one real Agent: everything asked
 * of the Controller that does not drive the Node (files, uploads, downloads, console commands and
 * streams) is forwarded to the one that does; its internal endpoint refuses anyone without a token.
 */
(testMongo ? describe : describe.skip)(`forwarding between Controllers (${testMongo?.kind ?? 'no MongoDB-compatible server'})`, function () {
  this.timeout(180_000);
  const database = testMongo && freshTestDatabase(testMongo, 'cairn_forward');
  const controllers: ControllerProcess[] = [];
  const dirs: string[] = [];
  let agent: AgentProcess | undefined;
  let agentDir = '';
  let cookie = '';
  let serverId = '';
  let holder: ControllerProcess;
  let other: ControllerProcess;

  const apiOf = (c: ControllerProcess): ApiClient => c.api.withCookie(cookie);
  const tempDir = async (prefix: string) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  before(async () => {
    const first = await tempDir('cairn-forward-');
    const secretsKeyFile = join(first, 'shared-secrets.key');
    const start = async (dataDir: string) => {
      const c = await ControllerProcess.start(dataDir, 0, {
        extraArgs: ['--secrets-key-file', secretsKeyFile, '--sftp-port', 'off'],
        env: { MONGODB_URI: await database!.uri() },
      });
      controllers.push(c);
      return c;
    };
    const a = await start(first);
    cookie = (await setUpAdminOf(a, first)).cookie;
    await start(await tempDir('cairn-forward-'));
    const teamId = (await apiOf(a).post<Team>('/teams', { name: 'Ops' })).body.id;
    const issued = (await apiOf(a).post<EnrollmentIssued>('/nodes', { name: 'node-a' })).body;
    agentDir = await tempDir('cairn-forward-agent-');
    agent = AgentProcess.start({ grpcPort: a.grpcPort, dataDir: agentDir, gamePorts: await privateGamePorts(), enrollmentToken: issued.enrollmentToken, extra: agentArgs });
    const nodeId = issued.node.id;
    // Whichever Controller claimed the Node (A at the Agent's hello, or B at its tick first) drives it; the other forwards.
    holder = await waitFor(async () => {
      const node = (await apiOf(a).get<Node>(`/nodes/${nodeId}`)).body;
      const entry = (await apiOf(a).get<ClusterBody>('/cluster')).body.controllers.find((c) => c.id === node.status.controllerId);
      const driving = controllers.find((c) => entry?.httpAddress === `127.0.0.1:${c.httpPort}`);
      if (!driving) return undefined;
      return (await apiOf(driving).get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' ? driving : undefined;
    }, { timeoutMs: 60_000, what: 'the Node driven' });
    other = controllers.find((c) => c !== holder)!;
    const created = await apiOf(holder).post<ServerDetail>('/servers', {
      name: 'forwarded', teamId, nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 250, memoryBytes: GiB / 8 },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(apiOf(holder), serverId, (s) => s.phase === 'READY', 'READY', 60_000);
    expect((await apiOf(holder).post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(apiOf(holder), serverId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 60_000);
  });

  after(async () => {
    await agent?.kill();
    if (agentDir) await killGames(agentDir);
    await Promise.all(controllers.map((c) => c.kill()));
    await database?.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('lists, uploads and downloads a server\'s files through the Controller that does not drive its Node', async () => {
    const listed = await apiOf(other).get<FileList>(`/servers/${serverId}/files?path=.`);
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.items.map((e) => e.name)).to.include('server.properties');
    // Three and a half chunks of 1 MiB, so the upload and the download each take several forwarded requests.
    const content = randomBytes(3.5 * 1024 * 1024);
    const put = await apiOf(other).request('PUT', `/servers/${serverId}/files/content?path=forwarded.bin`, { rawBody: content });
    expect(put.status, put.text).to.equal(204);
    const fetched = await fetch(`http://127.0.0.1:${other.httpPort}/api/v1/servers/${serverId}/files/content?path=forwarded.bin`, { headers: { cookie } });
    expect(fetched.status).to.equal(200);
    expect(sha256(new Uint8Array(await fetched.arrayBuffer()))).to.equal(sha256(content));
    const onHolder = await apiOf(holder).get<FileList>(`/servers/${serverId}/files?path=.`);
    expect(onHolder.body.items.find((e) => e.name === 'forwarded.bin')?.sizeBytes).to.equal(content.length);
    const missing = await apiOf(other).get(`/servers/${serverId}/files/content?path=nothing-here.txt`);
    expect(missing.status, 'the Agent\'s refusal, forwarded').to.equal(404);
  });

  it('sends a console command through the Controller that does not drive the Node, and streams its answer there', async () => {
    const stream = await openSse<ConsoleStreamEvent>(`http://127.0.0.1:${other.httpPort}/api/v1/servers/${serverId}/console?tail=5`, { cookie });
    try {
      expect(stream.status, JSON.stringify(stream.problem)).to.equal(200);
      await stream.next((e) => e.event === 'replayed');
      const sent = await apiOf(other).post(`/servers/${serverId}/console/commands`, { command: 'say hello-forwarded' });
      expect(sent.status, sent.text).to.equal(200);
      const line = await stream.next((e) => e.event === 'line' && /hello-forwarded/.test((e.data as { text: string }).text), 20_000);
      expect((line.data as { replay: boolean }).replay).to.equal(false);
    } finally {
      stream.close();
    }
  });

  it('refuses a request to the internal endpoint without a valid internal token', async () => {
    const url = `http://127.0.0.1:${holder.httpPort}/internal/v1/link-request`;
    const body = JSON.stringify({ nodeId: 'any', timeoutMs: 1000, body: { body: 'fileList', fileList: { serverId, path: '.' } } });
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({})).status, 'no token').to.equal(401);
    expect((await post({ cookie })).status, 'a user\'s session').to.equal(401);
    const forged = await new SignJWT({ purpose: 'link-request' }).setProtectedHeader({ alg: 'HS256' }).setIssuer('someone').setAudience('anyone')
      .setIssuedAt().setExpirationTime('30s').sign(randomBytes(32));
    expect((await post({ authorization: `Bearer ${forged}` })).status, 'a token signed with another key').to.equal(401);
    const openapi = await holder.api.get<{ paths: Record<string, unknown> }>('/api/v1/openapi.json');
    expect(Object.keys(openapi.body.paths).filter((p) => p.includes('internal'))).to.deep.equal([]);
  });
});
