import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localAgentDir } from '../../src/controller/program/local-agent.js';
import type { AuditEventPage, ConsoleStreamEvent, Node, NodePage, ServerDetail, Team, User } from '../support/api-types.js';
import { adminCredentials, networkInput } from '../support/controller.js';
import { ControllerProcess } from '../support/controller-process.js';
import { killGames, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { gamePortsArgs, privateGamePorts } from '../support/game-ports.js';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { pidAlive } from '../support/game-processes.js';
import { slowUpload } from '../support/slow-upload.js';
import { openSse, type SseEvent } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

const MiB = 1024 * 1024;
const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: 64 * MiB };
const running = (s: ServerDetail) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** The supervised game's pid, as the Agent's supervisor recorded it. */
const gamePidIn = async (agentDir: string, serverId: string) =>
  (JSON.parse(await readFile(join(agentDir, 'servers', serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;
const uploadTemps = async (root: string) => (await readdir(root)).filter((n) => n.startsWith('.cairn-upload-'));
/** The JSON log lines a process wrote to stderr. */
const logLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

async function signIn(controller: ControllerProcess, dataDir: string, firstRun: boolean): Promise<ApiClient> {
  if (firstRun) {
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await controller.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
    expect(setup.status, setup.text).to.equal(201);
    return controller.api.withCookie(sessionCookieFrom(setup));
  }
  const login = await controller.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
  return controller.api.withCookie(sessionCookieFrom(login));
}

describe('cairn-controller on SIGTERM: a graceful stop with a console stream and uploads in flight', function () {
  this.timeout(120_000);
  const drainSeconds = 4;
  let dataDir: string;
  let controller: ControllerProcess | undefined;
  let args: string[];
  const agentDir = () => localAgentDir(dataDir);

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-shutdown-'));
    args = ['--local-agent', ...gamePortsArgs(await privateGamePorts()), '--shutdown-timeout', String(drainSeconds)];
  });
  after(async () => {
    await controller?.kill();
    await killGames(agentDir());
    await rm(dataDir, { recursive: true, force: true });
    await rm(agentDir(), { recursive: true, force: true });
  });

  it('ends the streams with `end {reason: shutdown}`, finishes the upload the client completes, leaves nothing of the one it abandons, exits 0; the game runs on and the store reopens whole', async () => {
    controller = await ControllerProcess.start(dataDir, 0, { extraArgs: args, env: { CAIRN_LOG_LEVEL: 'info' } });
    const admin = await signIn(controller, dataDir, true);
    const node = await waitFor(async () => {
      const { items } = (await admin.get<NodePage>('/nodes')).body;
      return items[0]?.status.connectionState === 'HEALTHY' ? items[0] : undefined;
    }, { timeoutMs: 20_000, what: 'the local Node HEALTHY' });
    const team = await admin.post<Team>('/teams', { name: 'Ops' });
    const created = await admin.post<ServerDetail>('/servers', { name: 'lobby', teamId: team.body.id, software: simcraft, resources: small });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    await waitForServer(admin, id, (s) => s.phase === 'READY', 'READY');
    expect((await admin.post(`/servers/${id}/start`)).status).to.equal(202);
    await waitForServer(admin, id, running, 'RUNNING');
    const game = await gamePidIn(agentDir(), id);
    const root = join(agentDir(), 'servers', id, 'root');

    const base = `http://127.0.0.1:${controller.httpPort}/api/v1`;
    const cookie = { cookie: admin.auth.cookie! };
    const consoleStream = await openSse<ConsoleStreamEvent>(`${base}/servers/${id}/console?tail=5`, cookie);
    const watchStream = await openSse<SseEvent>(`${base}/servers/watch`, cookie);
    expect([consoleStream.status, watchStream.status]).to.deep.equal([200, 200]);
    await consoleStream.next((e) => e.event === 'line');

    const whole = randomBytes(3 * MiB);
    const completed = slowUpload(`${base}/servers/${id}/files/content?path=whole.bin`, cookie);
    const abandoned = slowUpload(`${base}/servers/${id}/files/content?path=abandoned.bin`, cookie);
    await completed.write(whole.subarray(0, 1.5 * MiB));
    await abandoned.write(randomBytes(1.5 * MiB));
    // Both uploads have reached the Node: a temporary file each, a first MiB written.
    await waitFor(async () => {
      const temps = await uploadTemps(root);
      if (temps.length !== 2) return false;
      const sizes = await Promise.all(temps.map(async (n) => (await stat(join(root, n))).size));
      return sizes.every((s) => s >= MiB);
    }, { timeoutMs: 10_000, what: 'both uploads under way on the Node' });

    const signalledAt = Date.now();
    controller.child.kill('SIGTERM');
    const consoleEnd = await consoleStream.next((e) => e.event === 'end');
    expect(consoleEnd.data).to.deep.equal({ reason: 'shutdown' });
    await consoleStream.ended;
    expect((await watchStream.next((e) => e.event === 'end')).data).to.deep.equal({ reason: 'shutdown' });
    await watchStream.ended;
    const refused = await new Promise<string>((resolve) => {
      request(`http://127.0.0.1:${controller!.httpPort}/healthz`, (res) => resolve(`answered ${res.statusCode}`)).once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message)).end();
    });
    expect(refused, 'a new connection while draining').to.equal('ECONNREFUSED');

    await completed.write(whole.subarray(1.5 * MiB));
    completed.end();
    expect(await completed.outcome).to.deep.equal({ status: 204 });
    const abandonedOutcome = await abandoned.outcome;
    expect(abandonedOutcome, 'the abandoned upload is cut at the deadline').to.have.property('error');

    await controller.exited;
    const tookMs = Date.now() - signalledAt;
    expect(controller.child.exitCode, controller.stderr.slice(-2000)).to.equal(0);
    expect(tookMs).to.be.within(drainSeconds * 1000, drainSeconds * 1000 + 10_000);
    const last = logLines(controller.stderr).filter((l) => l.service === 'cairn-controller').pop();
    expect(last).to.include({ event: 'stopped', signal: 'SIGTERM', deadlineHit: true, streamsEnded: 2 });

    expect(sha256(await readFile(join(root, 'whole.bin')))).to.equal(sha256(whole));
    expect((await readdir(root)).filter((n) => n.startsWith('abandoned') || n.startsWith('.cairn-upload-'))).to.deep.equal([]);
    expect(pidAlive(game), 'the game outlives the Controller and its local Agent').to.equal(true);

    controller = await ControllerProcess.start(dataDir, controller.grpcPort, { extraArgs: args });
    const again = await signIn(controller, dataDir, false);
    await waitFor(async () => (await again.get<Node>(`/nodes/${node.id}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 20_000, what: 'the local Node back' });
    await waitForServer(again, id, running, 'RUNNING after the restart');
    expect(await gamePidIn(agentDir(), id)).to.equal(game);
    const audit = await again.get<AuditEventPage>(`/audit-events?action=server.file.write&targetId=${id}`);
    expect(audit.body.items.map((e) => [e.details.path, e.outcome]).sort()).to.deep.equal([['abandoned.bin', 'FAILED'], ['whole.bin', 'SUCCESS']]);
  });

  it('a second SIGTERM exits at once with 1, without waiting for the deadline', async () => {
    await controller?.kill();
    const otherDir = await mkdtemp(join(tmpdir(), 'cairn-shutdown-'));
    try {
      const slow = await ControllerProcess.start(otherDir, 0, { extraArgs: ['--shutdown-timeout', '60'] });
      // A JSON body announced but never sent keeps one request in flight.
      const stuck = request(`http://127.0.0.1:${slow.httpPort}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
      stuck.on('error', () => undefined);
      await new Promise<void>((resolve) => stuck.write('{"username":', () => resolve()));
      // An answer on another connection: by then the Controller has read the stuck request's headers, sent before.
      expect((await fetch(`http://127.0.0.1:${slow.httpPort}/healthz`)).status).to.equal(200);
      const signalledAt = Date.now();
      slow.child.kill('SIGTERM');
      await waitFor(async () => {
        const probe = await fetch(`http://127.0.0.1:${slow.httpPort}/healthz`).then(() => 'up', () => 'refused');
        return probe === 'refused';
      }, { what: 'the listener closed' });
      slow.child.kill('SIGTERM');
      await slow.exited;
      expect(slow.child.exitCode).to.equal(1);
      expect(Date.now() - signalledAt).to.be.below(10_000);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });
});

describe('cairn-agent on SIGTERM and SIGKILL', function () {
  this.timeout(60_000);
  let f: Fleet;

  before(async () => {
    f = await startFleet();
  });
  after(async () => f.dispose());

  it('exits 0, removes an unfinished upload, and leaves its game running for the next Agent to adopt', async () => {
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'survival', teamId: f.teamId, software: simcraft, resources: small });
    const id = created.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    await f.admin.post(`/servers/${id}/start`);
    await waitForServer(f.admin, id, running, 'RUNNING');
    const game = await gamePidIn(f.agentDir, id);
    const root = join(f.agentDir, 'servers', id, 'root');
    const upload = slowUpload(`${f.t.baseUrl}/api/v1/servers/${id}/files/content?path=half.bin`, { cookie: f.admin.auth.cookie! });
    await upload.write(randomBytes(1.5 * MiB));
    await waitFor(async () => (await uploadTemps(root)).length === 1, { what: 'the upload under way on the Node' });

    await f.agent.kill('SIGTERM');
    expect(await f.agent.exited, f.agent.stderr.slice(-2000)).to.equal(0);
    expect(await uploadTemps(root)).to.deep.equal([]);
    expect(pidAlive(game)).to.equal(true);
    // The Controller learns that the Node is gone at the next chunk it relays.
    await upload.write(randomBytes(MiB));
    upload.end();
    expect(await upload.outcome).to.deep.equal({ status: 503 });

    await f.startAgent();
    await waitForServer(f.admin, id, running, 'RUNNING under the new Agent');
    expect(await gamePidIn(f.agentDir, id)).to.equal(game);
  });

  it('killed mid-upload, leaves a temporary file that the next Agent removes before it connects', async () => {
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'creative', teamId: f.teamId, software: simcraft, resources: small });
    const id = created.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    const dir = join(f.agentDir, 'servers', id, 'root', 'uploads', 'deep');
    await mkdir(dir, { recursive: true });
    const upload = slowUpload(`${f.t.baseUrl}/api/v1/servers/${id}/files/content?path=uploads/deep/half.bin`, { cookie: f.admin.auth.cookie! });
    await upload.write(randomBytes(1.5 * MiB));
    await waitFor(async () => (await uploadTemps(dir)).length === 1, { what: 'the upload under way on the Node' });

    await f.agent.kill('SIGKILL');
    expect(await uploadTemps(dir), 'nothing removed it').to.have.length(1);
    upload.end();
    await upload.outcome;

    await f.startAgent();
    await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 20_000, what: 'the Agent back' });
    expect(await uploadTemps(dir)).to.deep.equal([]);
  });
});
