import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { localAgentDir } from '../../src/controller/program/local-agent.js';
import type { PortRange } from '../../src/shared/link/messages.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { killGames, tcpAccepts, waitForServer } from '../support/fleet.js';
import type { AuditEventPage, NodePage, ServerDetail, Team } from '../support/api-types.js';
import { gamePortsArgs, privateGamePorts } from '../support/game-ports.js';
import { pidAlive } from '../support/game-processes.js';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: 64 * 2 ** 20 };
const running = (s: ServerDetail) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';
/** What the kernel shows of a process: its argv and its environment, NUL-separated. */
const procText = (pid: number, file: 'cmdline' | 'environ') => readFile(`/proc/${pid}/${file}`, 'utf8');
/** A variable of the Controller's own environment that its Agent must never see. */
const canary = { name: 'CAIRN_CANARY_SECRET', value: 'canary-3f9a1c' };

describe('cairn-controller --local-agent: a Controller with its own enrolled Agent', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let nodeId: string;
  let serverId: string;
  let gamePorts: PortRange;
  const agentDir = () => localAgentDir(t.dataDir);
  const agentPid = () => t.controller.localAgent?.pid;
  const gamePid = async () =>
    (JSON.parse(await readFile(join(agentDir(), 'servers', serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;
  /** The one Node there is, once it is HEALTHY. */
  const healthyLocalNode = () =>
    waitFor(async () => {
      const { items } = (await admin.get<NodePage>('/nodes')).body;
      return items.length === 1 && items[0].status.connectionState === 'HEALTHY' ? items[0] : undefined;
    }, { timeoutMs: 20_000, intervalMs: 50, what: 'the local Node to be HEALTHY' });

  before(async () => {
    gamePorts = await privateGamePorts();
    // A data dir as an earlier version left it, the local Agent's inside it.
    const dataDir = await mkdtemp(join(tmpdir(), 'cairn-test-'));
    await mkdir(join(dataDir, 'local-agent'), { mode: 0o700 });
    await writeFile(join(dataDir, 'local-agent', 'left-by-an-earlier-version'), 'kept');
    process.env[canary.name] = canary.value;
    t = await startTestController({ dataDir, extraArgs: ['--local-agent', ...gamePortsArgs(gamePorts)] });
    ({ admin } = await setupAdmin(t));
  });
  after(async () => {
    delete process.env[canary.name];
    await t.stop();
    await killGames(agentDir());
    await t.dispose();
  });

  it('creates the Node "local" and enrolls the Agent with a token passed in its environment, never its argv; --game-ports is passed on', async () => {
    const node = await healthyLocalNode();
    expect(node.name).to.equal('local');
    expect(node.status.gamePorts).to.deep.equal(gamePorts);
    nodeId = node.id;
    const pid = agentPid()!;
    expect(pid).to.be.a('number');
    expect(await procText(pid, 'cmdline')).to.not.include('cairn_enr_');
    expect(await procText(pid, 'environ')).to.match(/(^|\0)CAIRN_ENROLLMENT_TOKEN=cairn_enr_/);
    const audit = await admin.get<AuditEventPage>(`/audit-events?action=node.create&targetId=${nodeId}`);
    expect(audit.body.items.map((e) => [e.actorKind, e.outcome])).to.deep.equal([['SYSTEM', 'SUCCESS']]);
  });

  it('the Agent gets an allowlisted environment: PATH, but no secret of the Controller\'s', async () => {
    const environ = (await procText(agentPid()!, 'environ')).split('\0');
    expect(process.env[canary.name]).to.equal(canary.value);
    expect(environ.filter((v) => v.startsWith(`${canary.name}=`))).to.deep.equal([]);
    expect(environ.filter((v) => v.startsWith('PATH='))).to.deep.equal([`PATH=${process.env.PATH}`]);
  });

  it('its data dir is beside the Controller\'s, the one an earlier version kept inside moved there; the Controller\'s is 0700', async () => {
    expect(agentDir()).to.equal(`${t.dataDir}-local-agent`);
    expect(dirname(agentDir())).to.equal(dirname(t.dataDir));
    expect(await readFile(join(agentDir(), 'left-by-an-earlier-version'), 'utf8')).to.equal('kept');
    await stat(join(agentDir(), 'node-credential.json'));
    await stat(join(t.dataDir, 'local-agent')).then(() => expect.fail('the old local Agent dir is still there'), () => undefined);
    expect((await stat(t.dataDir)).mode & 0o777).to.equal(0o700);
  });

  it('a simcraft server can be created and started on it, and reaches RUNNING and CONVERGED', async () => {
    const team = await admin.post<Team>('/teams', { name: 'Solo' });
    const created = await admin.post<ServerDetail>('/servers', { name: 'survival', teamId: team.body.id, software: simcraft, resources: small });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.nodeId).to.equal(nodeId);
    serverId = created.body.id;
    expect(created.body.gamePort).to.equal(gamePorts.first);
    await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'READY');
    expect((await admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    const server = await waitForServer(admin, serverId, running, 'RUNNING');
    expect(await tcpAccepts(server.gamePort!)).to.equal(true);
  });

  it('joining the network while running shows RESTART_PENDING until the next start, which clears it', async () => {
    const patched = await admin.patch<ServerDetail>(`/servers/${serverId}`, { inNetwork: true });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.markers).to.deep.equal(['RESTART_PENDING']);
    const pending = await waitForServer(admin, serverId, (s) => s.convergence === 'CONVERGED' && s.observedGeneration === s.generation, 'the join observed');
    expect(pending).to.include({ inNetwork: true });
    expect(pending.markers).to.deep.equal(['RESTART_PENDING']);
    const before = await gamePid();
    expect((await admin.post(`/servers/${serverId}/restart`)).status).to.equal(202);
    const after = await waitForServer(admin, serverId, (s) => running(s) && s.observedGeneration === s.generation && s.markers.length === 0, 'restarted without the marker');
    expect(after.markers).to.deep.equal([]);
    expect(await gamePid()).to.not.equal(before);
  });

  it('an Agent that dies is started again; the game it supervised keeps running and is adopted', async () => {
    const first = agentPid()!;
    const game = await gamePid();
    process.kill(first, 'SIGKILL');
    await waitFor(() => (agentPid() !== undefined && agentPid() !== first) || undefined, { timeoutMs: 20_000, what: 'a new local Agent process' });
    await healthyLocalNode();
    await waitForServer(admin, serverId, running, 'CONVERGED after the Agent restart');
    expect(await gamePid()).to.equal(game);
  });

  it('a Controller restart reuses the Node and the stored credential: no second Node, no new token', async () => {
    const game = await gamePid();
    t = await t.restart();
    const login = await t.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    admin = t.api.withCookie(sessionCookieFrom(login));
    const node = await healthyLocalNode();
    expect(node.id).to.equal(nodeId);
    expect(await procText(agentPid()!, 'environ')).to.not.include('CAIRN_ENROLLMENT_TOKEN=');
    await waitForServer(admin, serverId, running, 'CONVERGED after the Controller restart');
    expect(await gamePid()).to.equal(game);
  });

  it('stopping the Controller stops its Agent but not the game', async () => {
    const pid = agentPid()!;
    await t.stop();
    expect(() => process.kill(pid, 0)).to.throw();
    process.kill(await gamePid(), 0);
  });
});

describe('cairn-controller --local-agent when the stored credential is gone or the Node revoked', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  const relogin = async () => {
    const login = await t.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    admin = t.api.withCookie(sessionCookieFrom(login));
  };
  const nodes = async () => (await admin.get<NodePage>('/nodes')).body.items;
  const healthy = () => waitFor(async () => {
    const items = await nodes();
    return items.length === 1 && items[0].status.connectionState === 'HEALTHY' ? items[0] : undefined;
  }, { timeoutMs: 20_000, what: 'the local Node HEALTHY' });

  before(async () => {
    t = await startTestController({ extraArgs: ['--local-agent', ...gamePortsArgs(await privateGamePorts())] });
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('a lost credential: the same Node "local" is enrolled again with a new token', async () => {
    const first = await healthy();
    await t.stop();
    await rm(join(localAgentDir(t.dataDir), 'node-credential.json'));
    t = await t.restart();
    await relogin();
    const again = await healthy();
    expect(again.id).to.equal(first.id);
    expect(await procText(t.controller.localAgent!.pid!, 'environ')).to.match(/(^|\0)CAIRN_ENROLLMENT_TOKEN=cairn_enr_/);
  });

  it('a revoked Node "local": no Agent is started (revocation is final), the Controller still runs', async () => {
    const [node] = await nodes();
    expect((await admin.post(`/nodes/${node.id}/revoke`)).status).to.equal(200);
    t = await t.restart();
    await relogin();
    expect(t.controller.localAgent?.pid).to.equal(undefined);
    expect((await nodes()).map((n) => [n.id, n.adminState])).to.deep.equal([[node.id, 'REVOKED']]);
  });
});

describe('cairn-controller without --local-agent', () => {
  it('starts no Agent: there are no Nodes until someone enrolls one', async () => {
    const t = await startTestController();
    try {
      const { admin } = await setupAdmin(t);
      expect(t.controller.localAgent).to.equal(undefined);
      expect((await admin.get<NodePage>('/nodes')).body.items).to.deep.equal([]);
    } finally {
      await t.dispose();
    }
  });
});

describe('npm start (the built cairn-controller --local-agent as a program)', function () {
  this.timeout(30_000);
  const mainJs = join(process.cwd(), 'dist', 'src', 'controller', 'main.js');
  let dir: string;
  let controller: ReturnType<typeof spawn> | undefined;
  let agentPid: number | undefined;
  after(async () => {
    if (controller && controller.exitCode === null && controller.signalCode === null) controller.kill('SIGKILL');
    if (agentPid !== undefined && pidAlive(agentPid)) process.kill(agentPid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('prints only the listening line on stdout, logs where the setup code is, enrolls "local"; its Agent leaves when the Controller is killed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-start-'));
    const gamePorts = await privateGamePorts();
    const child = spawn(process.execPath, [mainJs, '--local-agent', ...gamePortsArgs(gamePorts), '--data-dir', join(dir, 'data'), '--http-port', '0', '--grpc-port', '0'], {
      env: { ...process.env, MONGODB_URI: '', CAIRN_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    controller = child;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const logs = () => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { httpPort } = JSON.parse(line) as { httpPort: number };

    const setup = await waitFor(() => logs().find((l) => l.event === 'setup_pending'), { what: 'the setup_pending log line' });
    expect(setup.setupCodeFile).to.equal(join(dir, 'data', 'setup-code'));
    expect(String(setup.msg)).to.equal(`Setup pending: open http://127.0.0.1:${httpPort}/ and enter the one-time setup code from ${join(dir, 'data', 'setup-code')} (or send it with POST /api/v1/setup)`);
    expect((await stat(join(dir, 'data', 'setup-code'))).mode & 0o777).to.equal(0o600);
    const started = await waitFor(() => logs().find((l) => l.event === 'local_agent_started'), { what: 'the local Agent to start' });
    agentPid = started.pid as number;

    const api = new ApiClient(`http://127.0.0.1:${httpPort}`);
    const code = (await readFile(join(dir, 'data', 'setup-code'), 'utf8')).trim();
    const done = await api.post('/setup', { setupCode: code, ...adminCredentials, network: { name: 'Main', description: '', address: '127.0.0.1', port: gamePorts.last } });
    const admin = api.withCookie(sessionCookieFrom(done));
    const local = await waitFor(async () => {
      const { items } = (await admin.get<NodePage>('/nodes')).body;
      return items.length === 1 && items[0].name === 'local' && items[0].status.connectionState === 'HEALTHY' ? items[0] : undefined;
    }, { timeoutMs: 15_000, what: 'the Node "local" HEALTHY' });
    expect(local.status.gamePorts).to.deep.equal(gamePorts);
    expect(stdout.trim().split('\n')).to.deep.equal([line]);

    child.kill('SIGKILL');
    await waitFor(() => !pidAlive(agentPid!) || undefined, { timeoutMs: 10_000, what: 'the local Agent to leave with its Controller' });
  });
});
