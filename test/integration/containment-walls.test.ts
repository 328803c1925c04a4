import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from '../support/agent-process.js';
import type { EnrollmentIssued, Node, ServerDetail } from '../support/api-types.js';
import { GiB, killGames, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';
import { askConsole } from '../support/game-console.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const MiB = 2 ** 20;

/** Runs `script` with sh as `uid` (no groups, no capabilities) in `cwd`: what the game itself could do there. */
function asGame(uid: number, cwd: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--', 'sh', '-ec', script], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`as uid ${uid}: ${script}: exit ${code}: ${stderr}`))));
  });
}

// The box needs root (CI and these machines run as root); elsewhere there is nothing to test here.
const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('containment: the walls of the box (real Agent as root)', function () {
  this.timeout(180_000);
  let f: Fleet;
  const homeOf = (dir: string, id: string) => join(dir, 'servers', id);

  async function create(name: string, nodeId?: string): Promise<ServerDetail> {
    const res = await f.admin.post<ServerDetail>('/servers', {
      name, teamId: f.teamId, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 256 * MiB }, restartPolicy: { maxRestarts: 0, windowSeconds: 60 }, ...(nodeId ? { nodeId } : {}),
    });
    expect(res.status, res.text).to.equal(201);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', `${name} READY`);
  }

  async function start(id: string): Promise<ServerDetail> {
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    return waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid !== undefined, 'RUNNING with a pid', 60_000);
  }

  const ask = (id: string, command: string, answer: RegExp) => askConsole(f, id, command, answer);

  const healthy = (nodeId: string) =>
    waitFor(async () => (await f.admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' || undefined, { what: `${nodeId} HEALTHY`, timeoutMs: 30_000 });

  before(async () => {
    f = await startFleet({ agentArgs: ['--isolation', 'auto'] });
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    if (!f) return;
    const servers = (await f.admin.get<{ items: { id: string }[] }>('/servers?limit=200')).body.items.map((s) => s.id);
    await f.dispose();
    await removeGameCgroups(servers);
  });

  it('the game reads its software at .cairn and can change none of it; it lies beside the root, the Agent\'s', async () => {
    const server = await start((await create('reader')).id);
    expect(await ask(server.id, 'readfile .cairn/simcraft.mjs', /readfile .*: (ok|error)/)).to.match(/: ok \d+ bytes$/);
    const software = join(homeOf(f.agentDir, server.id), 'software');
    for (const name of await readdir(software)) {
      const info = await stat(join(software, name));
      expect([info.uid, info.mode & 0o777], name).to.deep.equal([0, 0o644]);
    }
    expect((await stat(software)).mode & 0o777).to.equal(0o755);
    await f.admin.post(`/servers/${server.id}/stop`);
    await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 60_000);
  });

  it('a game that swaps its .cairn for links out cannot make the root Agent write through them (issue 38\'s reproduction)', async () => {
    const server = await start((await create('escaper')).id);
    const uid = Number(/uid=(\d+)/.exec(await ask(server.id, 'whoami', /uid=\d+/))![1]);
    await f.admin.post(`/servers/${server.id}/stop`);
    await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 60_000);
    const outside = await mkdtemp(join(tmpdir(), 'cairn-victim-'));
    const victim = join(outside, 'victim');
    await writeFile(victim, 'a root-owned file outside every server\n');
    const root = join(homeOf(f.agentDir, server.id), 'root');
    try {
      // What the issue did as the server's uid in its root, with a FIFO where the marker was read.
      await asGame(uid, root, `mv .cairn x; mkdir .cairn; ln -s ${victim} .cairn/simcraft.mjs; mkfifo .cairn/installed.json`);
      await f.agent.kill();
      await f.startAgent();
      await healthy(f.nodeId);
      const again = await start(server.id);
      expect(await readFile(victim, 'utf8')).to.equal('a root-owned file outside every server\n');
      expect(await ask(again.id, 'readfile .cairn/simcraft.mjs', /readfile .*: (ok|error)/)).to.match(/: ok \d+ bytes$/);
      const mountPoint = await stat(join(root, '.cairn'));
      expect([mountPoint.isDirectory(), mountPoint.uid]).to.deep.equal([true, 0]);
      // What the game moved aside is its own and stays.
      expect((await stat(join(root, 'x'))).uid).to.equal(uid);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('without bubblewrap (auto), a game still runs as its server\'s uid with no capabilities, and reaches its own files only', async () => {
    const created = await f.admin.post<EnrollmentIssued>('/nodes', { name: 'no-bwrap' });
    const dir = await mkdtemp(join(tmpdir(), 'cairn-agent-nobwrap-'));
    // A Node without bubblewrap: the Agent's own mount namespace covers the program with /dev/null.
    const wrap = ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount --bind /dev/null /usr/bin/bwrap && exec "$@"', 'hide-bwrap'];
    const agent = AgentProcess.start({
      grpcPort: f.t.controller.grpcPort, dataDir: dir, gamePorts: await privateGamePorts(), enrollmentToken: created.body.enrollmentToken, wrap,
      extra: ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--bind-address', '127.0.0.1', '--isolation', 'auto', '--game-uids', '400000-409999'],
    });
    try {
      const nodeId = created.body.node.id;
      const node = await waitFor(async () => {
        const n = (await f.admin.get<Node>(`/nodes/${nodeId}`)).body;
        return n.status.connectionState === 'HEALTHY' && n.status.isolation && n.conditions.some((c) => c.reason === 'ISOLATION_UNAVAILABLE') ? n : undefined;
      }, { what: 'the Node without bubblewrap', timeoutMs: 30_000 }).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}; the Agent said: ${agent.stderr.slice(-2000)} ${agent.stdout.slice(-3000)}`);
      });
      expect(node.status.isolation).to.include({ users: true, filesystem: false });
      expect(node.conditions.find((c) => c.reason === 'ISOLATION_UNAVAILABLE')?.message).to.match(/bubblewrap/);
      const server = await start((await create('unviewed', nodeId)).id);
      const who = await ask(server.id, 'whoami', /uid=\d+/);
      const uid = Number(/uid=(\d+)/.exec(who)![1]);
      expect(uid).to.be.within(400_000, 409_999);
      expect(who).to.include(`gid=${uid}`);
      const status = await readFile(`/proc/${server.status.pid}/status`, 'utf8');
      expect(/^CapEff:\s*(\S+)$/m.exec(status)?.[1]).to.equal('0000000000000000');
      expect(/^NoNewPrivs:\s*(\S+)$/m.exec(status)?.[1]).to.equal('1');
      expect(await ask(server.id, 'readfile server.properties', /readfile .*: (ok|error)/)).to.match(/: ok \d+ bytes$/);
      for (const path of [join(dir, 'credential.json'), join(dir, 'game-uids.json'), join(dir, 'servers', server.id, 'applied.json'), '/etc/shadow']) {
        expect(await ask(server.id, `readfile ${path}`, /readfile .*: (ok|error)/), path).to.match(/: error E[A-Z]+$/);
      }
    } finally {
      await agent.kill();
      await killGames(dir);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
