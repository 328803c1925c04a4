import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { chown, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from '../support/agent-process.js';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { GiB, killGames, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';
import { removeGameNetworks } from '../support/game-networks.js';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';
import { askConsole } from '../support/game-console.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const MiB = 2 ** 20;

/** The first field of a /proc/<pid>/status line such as `Uid:  200000  200000 ...`. */
async function procStatusField(pid: number, field: string): Promise<string> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return new RegExp(`^${field}:[ \\t]*(.*)$`, 'm').exec(status)?.[1].trim() ?? '';
}

// The box needs root (CI and these machines run as root); elsewhere there is nothing to test here.
const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('containment: every game in its own box (real Agent as root, cgroup v1 here)', function () {
  this.timeout(180_000);
  let f: Fleet;
  let otherTeam: string;
  const rootOf = (id: string) => join(f.agentDir, 'servers', id, 'root');

  async function create(name: string, teamId: string, resources = { cpuMillis: 500, memoryBytes: 256 * MiB }): Promise<ServerDetail> {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources, restartPolicy: { maxRestarts: 0, windowSeconds: 60 } });
    expect(res.status, res.text).to.equal(201);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', `${name} READY`);
  }

  async function start(id: string): Promise<ServerDetail> {
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    return waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid !== undefined, 'RUNNING with a pid', 60_000);
  }

  const ask = (id: string, command: string, answer: RegExp, timeoutMs?: number) => askConsole(f, id, command, answer, timeoutMs);

  /** After an Agent restart: the Node is HEALTHY again, so its servers' reports and streams are live. */
  const healthy = (nodeId: string) =>
    waitFor(async () => (await f.admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' || undefined, { what: `${nodeId} HEALTHY`, timeoutMs: 30_000 });

  before(async () => {
    f = await startFleet({ agentArgs: ['--isolation', 'auto'] });
    otherTeam = (await f.admin.post<Team>('/teams', { name: 'Other' })).body.id;
  });
  after(async () => {
    const servers = (await f.admin.get<{ items: { id: string }[] }>('/servers?limit=200')).body.items.map((s) => s.id);
    await f.dispose();
    await removeGameCgroups(servers);
  });

  it('the Node says what it enforces: users, filesystem, memory and cpu, and no ISOLATION_UNAVAILABLE', async () => {
    const node = await waitFor(async () => {
      const n = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body;
      return n.status.isolation ? n : undefined;
    }, { what: 'the Node\'s isolation' });
    expect(node.status.isolation).to.deep.equal({ users: true, filesystem: true, memory: true, cpu: true, pids: true, gameUids: '200000-299999', disk: 'accounting', network: true });
    expect(node.conditions.map((c) => c.reason)).to.not.include('ISOLATION_UNAVAILABLE');
  });

  describe('two servers of two teams on one Node', () => {
    let a: ServerDetail;
    let b: ServerDetail;
    before(async () => {
      [a, b] = await Promise.all([create('box-a', f.teamId), create('box-b', otherTeam)]);
      [a, b] = await Promise.all([start(a.id), start(b.id)]);
    });

    it('run as different non-root uids with no supplementary groups and no new privileges', async () => {
      const [whoA, whoB] = await Promise.all([ask(a.id, 'whoami', /uid=\d+ gid=\d+/), ask(b.id, 'whoami', /uid=\d+ gid=\d+/)]);
      const uidA = Number(/uid=(\d+)/.exec(whoA)![1]);
      const uidB = Number(/uid=(\d+)/.exec(whoB)![1]);
      expect(uidA).to.be.within(200_000, 299_999);
      expect(uidB).to.be.within(200_000, 299_999);
      expect(uidA).to.not.equal(uidB);
      expect(whoA).to.include(`gid=${uidA}`);
      for (const [server, uid] of [[a, uidA], [b, uidB]] as const) {
        expect((await procStatusField(server.status.pid!, 'Uid')).split(/\s+/)).to.deep.equal([String(uid), String(uid), String(uid), String(uid)]);
        expect(await procStatusField(server.status.pid!, 'Groups')).to.equal('');
        expect(await procStatusField(server.status.pid!, 'NoNewPrivs')).to.equal('1');
        expect(await procStatusField(server.status.pid!, 'CapEff')).to.equal('0000000000000000');
        expect((await stat(rootOf(server.id))).uid).to.equal(uid);
      }
    });

    it('each reads its own files and nothing of the other server, the Agent or the Controller', async () => {
      await writeFile(join(rootOf(b.id), 'secret.txt'), 'team b only');
      await ask(a.id, 'save-all', /Saved the game/);
      expect(await ask(a.id, `readfile ${join(rootOf(a.id), 'server.properties')}`, /readfile .*: (ok|error)/)).to.match(/: ok \d+ bytes$/);
      expect(await ask(a.id, 'readfile server.properties', /readfile .*: (ok|error)/)).to.match(/: ok \d+ bytes$/);
      const forbidden = [
        join(rootOf(b.id), 'secret.txt'),
        join(f.agentDir, 'credential.json'),
        join(f.agentDir, 'game-uids.json'),
        join(f.t.dataDir, 'store', 'settings.db'),
        '/etc/shadow',
      ];
      for (const path of forbidden) {
        expect(await ask(a.id, `readfile ${path}`, /readfile .*: (ok|error)/), path).to.match(/: error E[A-Z]+$/);
      }
    });

    it('lists only its own processes (a pid namespace of its own)', async () => {
      expect(await ask(a.id, `readfile /proc/${process.pid}/cmdline`, /readfile .*: (ok|error)/)).to.match(/: error ENOENT$/);
    });

    it('each game sits in a cgroup of its own with its memory, CPU and task limits', async () => {
      const cgroups = await readFile(`/proc/${a.status.pid}/cgroup`, 'utf8');
      expect(cgroups).to.include(`/cairn/${a.id}`);
      const memory = await readFile(`/sys/fs/cgroup/memory/cairn/${a.id}/memory.limit_in_bytes`, 'utf8');
      expect(Number(memory)).to.equal(256 * MiB);
      expect(Number(await readFile(`/sys/fs/cgroup/cpu/cairn/${a.id}/cpu.cfs_quota_us`, 'utf8'))).to.equal(50_000);
      expect(Number(await readFile(`/sys/fs/cgroup/pids/cairn/${a.id}/pids.max`, 'utf8'))).to.equal(4096);
    });

    it('spin stays within the CPU quota (500m: half a core)', async () => {
      const usage = `/sys/fs/cgroup/cpuacct/cairn/${a.id}/cpuacct.usage`;
      const before = Number(await readFile(usage, 'utf8'));
      const started = process.hrtime.bigint();
      await ask(a.id, 'spin 3 2', /spin done/, 30_000);
      const wallNs = Number(process.hrtime.bigint() - started);
      const cpuNs = Number(await readFile(usage, 'utf8')) - before;
      const cores = cpuNs / wallNs;
      // Two busy threads would take two cores; the quota holds them to half of one (within 50%).
      expect(cores).to.be.below(0.75);
      expect(cores).to.be.above(0.25);
    });
  });

  it('alloc past the memory limit ends in OOM_KILLED, naming the limit', async () => {
    const hog = await start((await create('hog', f.teamId, { cpuMillis: 500, memoryBytes: 192 * MiB })).id);
    void f.admin.post(`/servers/${hog.id}/console/commands`, { command: 'alloc 512' });
    const crashed = await waitForServer(f.admin, hog.id, (s) => s.status.lastCrash !== undefined && s.conditions.some((c) => c.reason === 'OOM_KILLED'), 'OOM_KILLED', 60_000);
    expect(crashed.status.lastCrash).to.include({ reason: 'OOM_KILLED', signal: 'SIGKILL' });
    expect(crashed.conditions.find((c) => c.reason === 'OOM_KILLED')?.message).to.equal('killed: out of memory at its 192 MiB limit');
    expect(crashed.status.pid).to.equal(undefined);
  });

  describe('an Agent that cannot box: run as an unprivileged user (setpriv)', () => {
    const nobody = 65534;
    async function unprivilegedNode(name: string, isolation: 'auto' | 'required') {
      const created = await f.admin.post<EnrollmentIssued>('/nodes', { name });
      const dir = await mkdtemp(join(tmpdir(), 'cairn-agent-nobody-'));
      await chown(dir, nobody, nobody);
      const agent = AgentProcess.start({
        grpcPort: f.t.controller.grpcPort, dataDir: dir, gamePorts: await privateGamePorts(), enrollmentToken: created.body.enrollmentToken, asUser: nobody,
        extra: ['--isolation', isolation, '--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--bind-address', '127.0.0.1'],
      });
      unprivileged.push({ agent, dir });
      const nodeId = created.body.node.id;
      const node = await waitFor(async () => {
        const n = (await f.admin.get<Node>(`/nodes/${nodeId}`)).body;
        // The hello says what the Node enforces; the first heartbeat brings the condition.
        return n.status.connectionState === 'HEALTHY' && n.status.isolation && n.conditions.some((c) => c.reason === 'ISOLATION_UNAVAILABLE') ? n : undefined;
      }, { what: `${name} HEALTHY with ISOLATION_UNAVAILABLE`, timeoutMs: 30_000 });
      return node;
    }
    const unprivileged: { agent: AgentProcess; dir: string }[] = [];
    after(async () => {
      for (const { agent, dir } of unprivileged) {
        await agent.kill();
        await killGames(dir);
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('auto: the Node reports ISOLATION_UNAVAILABLE naming what is missing, and games still run (as the Agent\'s user)', async () => {
      const node = await unprivilegedNode('nobody-auto', 'auto');
      expect(node.status.isolation).to.deep.equal({ users: false, filesystem: false, memory: false, cpu: false, pids: false, disk: 'accounting', network: false });
      const condition = node.conditions.find((c) => c.reason === 'ISOLATION_UNAVAILABLE');
      expect(condition?.source).to.equal('AGENT');
      expect(condition?.message).to.match(/^Games run without full isolation: the Agent is not root \(it lacks CAP_/);
      expect(node.status.connectionState).to.equal('HEALTHY');
      const res = await f.admin.post<ServerDetail>('/servers', { name: 'unboxed', teamId: f.teamId, nodeId: node.id, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 256 * MiB } });
      expect(res.status, res.text).to.equal(201);
      await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
      const running = await start(res.body.id);
      expect(await ask(running.id, 'whoami', /uid=\d+/)).to.include(`uid=${nobody} gid=${nobody}`);
    });

    it('required: the Node refuses to start games; each server gets ISOLATION_UNAVAILABLE and stays STOPPED (no crash loop)', async () => {
      const node = await unprivilegedNode('nobody-required', 'required');
      expect(node.conditions.find((c) => c.reason === 'ISOLATION_UNAVAILABLE')?.message).to.match(/^Games are not started: --isolation required, and the Agent is not root/);
      const res = await f.admin.post<ServerDetail>('/servers', { name: 'refused', teamId: f.teamId, nodeId: node.id, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 256 * MiB } });
      expect(res.status, res.text).to.equal(201);
      await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
      expect((await f.admin.post(`/servers/${res.body.id}/start`)).status).to.equal(202);
      const refused = await waitForServer(f.admin, res.body.id, (s) => s.status.conditions.some((c) => c.reason === 'ISOLATION_UNAVAILABLE') && s.observedGeneration === s.generation, 'ISOLATION_UNAVAILABLE');
      expect(refused.status.runtimeState).to.equal('STOPPED');
      expect(refused.status.pid).to.equal(undefined);
      expect(refused.conditions.map((c) => c.reason)).to.not.include('CRASH_LOOP');
      expect(refused.status.lastCrash).to.equal(undefined);
    });
  });

  it('an Agent restart re-adopts a boxed game: same pid, same cgroup and limits, still its uid', async () => {
    const server = await start((await create('adopted', f.teamId)).id);
    const pid = server.status.pid!;
    const uid = (await procStatusField(pid, 'Uid')).split(/\s+/)[0];
    await f.agent.kill();
    await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.connectionState !== 'HEALTHY' || undefined, { what: 'the Node to miss its Agent', timeoutMs: 60_000 });
    await f.startAgent();
    await healthy(f.nodeId);
    const again = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid === pid && s.observedGeneration === s.generation, 'adopted', 30_000);
    expect(again.status.pid).to.equal(pid);
    expect((await procStatusField(pid, 'Uid')).split(/\s+/)[0]).to.equal(uid);
    expect(await readFile(`/proc/${pid}/cgroup`, 'utf8')).to.include(`/cairn/${server.id}`);
    expect(Number(await readFile(`/sys/fs/cgroup/memory/cairn/${server.id}/memory.limit_in_bytes`, 'utf8'))).to.equal(256 * MiB);
    expect(await ask(server.id, 'whoami', /uid=\d+/)).to.include(`uid=${uid}`);
  });

  it('the files API never leaves the root while the game swaps a directory for a symlink (renameat2 RENAME_EXCHANGE, 400 tries each)', async function () {
    const server = await create('racer', f.teamId);
    const root = rootOf(server.id);
    const outside = await mkdtemp(join(tmpdir(), 'cairn-outside-'));
    await writeFile(join(outside, 'f'), 'CANARY outside the root');
    await writeFile(join(outside, 'outside-only'), 'CANARY');
    await mkdir(join(root, 'd'));
    await writeFile(join(root, 'd', 'f'), 'inside');
    await symlink(outside, join(root, 'd-link'));
    // What the issue measured: a game exchanging `d` and a link to outside, as fast as it can.
    const racer = spawn('python3', ['-c', [
      'import ctypes, sys',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'a, b = sys.argv[1].encode(), sys.argv[2].encode()',
      'while True: libc.renameat2(-100, a, -100, b, 2)',
    ].join('\n'), join(root, 'd'), join(root, 'd-link')], { stdio: 'ignore' });
    try {
      const q = (path: string) => `?path=${encodeURIComponent(path)}`;
      const outcomes = { read: 0, refused: 0, escaped: 0 };
      for (let i = 0; i < 400; i++) {
        const res = await f.admin.request('GET', `/servers/${server.id}/files/content${q('d/f')}`);
        if (res.text.includes('CANARY')) outcomes.escaped += 1;
        else if (res.status === 200) outcomes.read += 1;
        else outcomes.refused += 1;
        const listed = await f.admin.request('GET', `/servers/${server.id}/files${q('d')}`);
        if (listed.text.includes('outside-only')) outcomes.escaped += 1;
        const wrote = await f.admin.request('PUT', `/servers/${server.id}/files/content${q(`d/new-${i}`)}`, { rawBody: 'x' });
        expect([201, 200, 204, 400, 404, 409].includes(wrote.status), wrote.text).to.equal(true);
      }
      console.log(`      rename race: ${JSON.stringify(outcomes)}`);
      expect(outcomes.escaped).to.equal(0);
      expect(outcomes.read, 'the race let some reads through the real directory').to.be.greaterThan(0);
      expect(outcomes.refused, 'the race was really on: some reads met the link').to.be.greaterThan(0);
      expect((await readdir(outside)).sort()).to.deep.equal(['f', 'outside-only']);
    } finally {
      racer.kill('SIGKILL');
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('upgrades in place: a game started unboxed keeps running across the switch, and moves into its box at its next start', async () => {
    // A second Agent on this host: uids of its own, beside the first Agent's default range.
    const uids = { first: 300_000, last: 309_999 };
    const created = await f.admin.post<EnrollmentIssued>('/nodes', { name: 'upgraded' });
    const dir = await mkdtemp(join(tmpdir(), 'cairn-agent-upgrade-'));
    const gamePorts = await privateGamePorts();
    const args = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--bind-address', '127.0.0.1'];
    let agent = AgentProcess.start({ grpcPort: f.t.controller.grpcPort, dataDir: dir, gamePorts, enrollmentToken: created.body.enrollmentToken, extra: [...args, '--isolation', 'off'] });
    try {
      const nodeId = created.body.node.id;
      await waitFor(async () => (await f.admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' || undefined, { what: 'HEALTHY' });
      const res = await f.admin.post<ServerDetail>('/servers', { name: 'old', teamId: f.teamId, nodeId, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 256 * MiB } });
      await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
      const before = await start(res.body.id);
      expect(await ask(before.id, 'whoami', /uid=\d+/)).to.include('uid=0 gid=0');
      await agent.kill();
      await waitFor(async () => (await f.admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState !== 'HEALTHY' || undefined, { what: 'the Node to miss its Agent', timeoutMs: 60_000 });
      agent = AgentProcess.start({ grpcPort: f.t.controller.grpcPort, dataDir: dir, gamePorts, extra: [...args, '--isolation', 'auto', '--game-uids', `${uids.first}-${uids.last}`] });
      await healthy(nodeId);
      const adopted = await waitForServer(f.admin, before.id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid === before.status.pid, 'adopted', 30_000);
      expect(await ask(adopted.id, 'whoami', /uid=\d+/)).to.include('uid=0 gid=0');
      const uid = (JSON.parse(await readFile(join(dir, 'game-uids.json'), 'utf8')) as Record<string, number>)[before.id];
      expect(uid).to.be.within(uids.first, uids.last);
      expect((await f.admin.post(`/servers/${before.id}/restart`)).status).to.equal(202);
      const boxed = await waitForServer(f.admin, before.id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid !== undefined && s.status.pid !== before.status.pid, 'restarted', 60_000);
      expect(await ask(boxed.id, 'whoami', /uid=\d+/)).to.include(`uid=${uid} gid=${uid}`);
      expect((await stat(join(dir, 'servers', before.id, 'root', 'server.properties'))).uid).to.equal(uid);
      expect((await stat(join(dir, 'servers', before.id, 'software'))).uid).to.equal(0);
      expect((await stat(join(dir, 'servers', before.id, 'root', '.cairn'))).uid).to.equal(0);
    } finally {
      await agent.kill();
      await killGames(dir);
      await removeGameNetworks(dir, gamePorts);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
