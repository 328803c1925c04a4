import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { access } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import type { Node, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';
import { gameNetworksOf } from '../support/game-networks.js';
import { greetingOn } from '../support/game-processes.js';
import { freePort } from '../support/sim-process.js';
import { waitFor } from '../support/wait-for.js';
import { askConsole } from '../support/game-console.js';

const run = promisify(execFile);
const sh = (script: string) => run('sh', ['-ec', script], { timeout: 10_000 });
const simcraft = { template: 'simcraft', version: '1.21.4' };
const MiB = 2 ** 20;
const resources = { cpuMillis: 500, memoryBytes: 256 * MiB };

/** A host of a private range the test makes itself (a namespace of its own): the one the Agent is told games may reach on one port. */
const egress = { netns: `cairn-test-egress-${process.pid}`, veth: `cte${process.pid % 100000}`, host: '10.213.77.1', peer: '10.213.77.2', allowedPort: 7000, otherPort: 7001 };

/** Whether a player on the Node gets a TCP connection to `port` at 127.0.0.1 (3 s deadline). */
function playerReaches(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      clearTimeout(deadline);
      socket.destroy();
      resolve(ok);
    };
    const deadline = setTimeout(() => done(false), 3000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const exists = (path: string) => access(path).then(() => true, () => false);

const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('containment: a game\'s own network (real Agent as root)', function () {
  this.timeout(180_000);
  let f: Fleet;
  let listener: Server;
  let egressHost: ChildProcess | undefined;

  async function create(name: string, extra: Record<string, unknown> = {}): Promise<ServerDetail & { gamePort: number }> {
    const res = await f.admin.post<ServerDetail>('/servers', {
      name, teamId: f.teamId, software: simcraft, resources, restartPolicy: { maxRestarts: 0, windowSeconds: 60 }, ...extra,
    });
    expect(res.status, res.text).to.equal(201);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', `${name} READY`) as Promise<ServerDetail & { gamePort: number }>;
  }

  async function start(id: string): Promise<ServerDetail> {
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    return waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid !== undefined, 'RUNNING with a pid', 60_000);
  }

  async function stop(id: string): Promise<void> {
    expect((await f.admin.post(`/servers/${id}/stop`)).status).to.equal(202);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 60_000);
  }

  const ask = (id: string, command: string, answer: RegExp) => askConsole(f, id, command, answer);

  /** What the game gets when it connects to `host:port` from inside its box: `ok` or `error CODE`. */
  async function connectFromGame(id: string, host: string, port: number): Promise<string> {
    const line = await ask(id, `connect ${host} ${port}`, new RegExp(`connect ${host.replace(/\./g, '\\.')}:${port}: `));
    return /: (ok|error \w+)$/.exec(line)![1];
  }

  before(async () => {
    await sh([
      `ip netns add ${egress.netns}`,
      `ip link add ${egress.veth} type veth peer name eth0 netns ${egress.netns}`,
      `ip addr add ${egress.host}/30 dev ${egress.veth}`,
      `ip link set ${egress.veth} up`,
      `ip -n ${egress.netns} addr add ${egress.peer}/30 dev eth0`,
      `ip -n ${egress.netns} link set eth0 up`,
      `ip -n ${egress.netns} link set lo up`,
    ].join('\n'));
    const script = `for (const p of [${egress.allowedPort}, ${egress.otherPort}]) require('node:net').createServer((s) => s.end()).listen(p, '${egress.peer}'); console.log('up')`;
    egressHost = spawn('ip', ['netns', 'exec', egress.netns, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(egressHost.stdout!, 'data');
    listener = createServer((s) => s.end());
    listener.listen(0, '0.0.0.0');
    await once(listener, 'listening');
    f = await startFleet({ agentArgs: ['--isolation', 'auto', '--game-egress-allow', `${egress.peer}:${egress.allowedPort}`] });
  });

  after(async () => {
    egressHost?.kill('SIGKILL');
    await sh(`ip netns del ${egress.netns} || true; ip link del ${egress.veth} 2>/dev/null || true`);
    listener.close();
    const servers = (await f.admin.get<{ items: { id: string }[] }>('/servers?limit=200')).body.items.map((s) => s.id);
    await f.dispose();
    await removeGameCgroups(servers);
  });

  it('the Node says its games have their own network', async () => {
    const node = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body;
    expect(node.status.isolation).to.include({ network: true });
  });

  it('a game reaches no address of the Node, no link-local and no private range, only what the operator allows; players still reach it', async () => {
    const node = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body;
    // Without its own network the game's packets to the metadata address would leave the host: never try then.
    expect(node.status.isolation?.network, 'games have their own network').to.equal(true);
    const server = await create('walled');
    await start(server.id);
    expect(await playerReaches(server.gamePort)).to.equal(true);
    const controllerPort = Number(new URL(f.t.baseUrl).port);
    expect(await connectFromGame(server.id, '127.0.0.1', controllerPort), 'the Controller on the Node\'s loopback').to.equal('error ECONNREFUSED');
    const { port } = listener.address() as AddressInfo;
    const local = Object.values(networkInterfaces()).flat().flatMap((a) => (a?.family === 'IPv4' ? [a.address] : []));
    expect(local).to.include('127.0.0.1');
    for (const address of local) expect(await connectFromGame(server.id, address, port), `the Node's ${address}`).to.equal('error ECONNREFUSED');
    expect(await connectFromGame(server.id, '169.254.169.254', 80), 'the metadata address').to.equal('error ECONNREFUSED');
    expect(await connectFromGame(server.id, egress.peer, egress.allowedPort), 'allowed').to.equal('ok');
    expect(await connectFromGame(server.id, egress.peer, egress.otherPort), 'not allowed').to.equal('error ECONNREFUSED');
    await stop(server.id);
  });

  it('a global administrator lets one running game reach more with network.egressAllow, without a restart; its neighbour stays refused', async () => {
    const allowed = await create('allowed');
    const neighbour = await create('fenced');
    const running = await start(allowed.id);
    await start(neighbour.id);
    expect(await connectFromGame(allowed.id, egress.peer, egress.otherPort), 'before').to.equal('error ECONNREFUSED');
    const res = await f.admin.patch<ServerDetail>(`/servers/${allowed.id}`, { network: { egressAllow: [`${egress.peer}:${egress.otherPort}`] } });
    expect(res.status, res.text).to.equal(200);
    await waitFor(async () => (await connectFromGame(allowed.id, egress.peer, egress.otherPort)) === 'ok' || undefined, { what: 'the allowed game reaching the target', timeoutMs: 15_000 });
    expect(await connectFromGame(neighbour.id, egress.peer, egress.otherPort), 'the neighbour').to.equal('error ECONNREFUSED');
    const after = await waitForServer(f.admin, allowed.id, (s) => s.convergence === 'CONVERGED', 'CONVERGED');
    expect(after.status.pid, 'the same game: no restart').to.equal(running.status.pid);
    await stop(allowed.id);
    await stop(neighbour.id);
  });

  it('a port a game binds is bound in its own network: a stopped neighbour\'s port stays its own', async () => {
    const squatter = await create('squatter');
    const neighbour = await create('neighbour');
    await start(squatter.id);
    expect(await ask(squatter.id, `bind ${neighbour.gamePort}`, /\] bind \d+: /)).to.match(/: ok$/);
    expect(await playerReaches(neighbour.gamePort), 'players never reach the squatter through the neighbour\'s port').to.equal(false);
    await start(neighbour.id);
    expect(await playerReaches(neighbour.gamePort)).to.equal(true);
    // Games reach each other's published ports at the Node's address, as a proxy reaches its members.
    expect(await connectFromGame(squatter.id, '127.0.0.1', neighbour.gamePort)).to.equal('ok');
    await stop(squatter.id);
    await stop(neighbour.id);
  });

  it('a game keeps its network across Agent restarts and SIGKILL; the next start cleans up; a deleted server leaves no namespace or veth', async () => {
    const server = await create('survivor');
    const before = await start(server.id);
    await f.agent.kill('SIGKILL');
    expect(await playerReaches(server.gamePort), 'while the Agent is down').to.equal(true);
    await f.startAgent();
    await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid === before.status.pid, 'adopted', 30_000);
    expect(await playerReaches(server.gamePort), 'after the restart').to.equal(true);
    await stop(server.id);
    expect(await playerReaches(server.gamePort), 'stopped').to.equal(false);
    await start(server.id);
    expect(await playerReaches(server.gamePort), 'started again').to.equal(true);
    const [net] = (await gameNetworksOf(f.agentDir)).filter((n) => n.serverId === server.id);
    expect(await exists(`/run/netns/${net.netns}`)).to.equal(true);
    expect(await exists(`/sys/class/net/${net.hostVeth}`)).to.equal(true);
    expect((await f.admin.delete(`/servers/${server.id}`)).status).to.be.oneOf([200, 202, 204]);
    await waitFor(async () => (await f.admin.get(`/servers/${server.id}`)).status === 404 || undefined, { what: 'the server gone', timeoutMs: 60_000 });
    await waitFor(async () => !(await exists(`/run/netns/${net.netns}`)) && !(await exists(`/sys/class/net/${net.hostVeth}`)) || undefined, { what: 'its namespace and veth gone', timeoutMs: 10_000 });
  });

  it('a player reaches a boxed member through the boxed proxy, each game in a namespace of its own', async () => {
    const networkPort = await freePort();
    expect((await f.admin.patch('/network', { port: networkPort })).status).to.equal(200);
    const created = await f.admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources, nodeId: f.nodeId });
    expect(created.status, created.text).to.equal(201);
    const proxy = await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY', 'proxy READY');
    const member = await create('member', { inNetwork: true });
    await start(member.id);
    await start(proxy.id);
    const nets = new Map((await gameNetworksOf(f.agentDir)).map((n) => [n.serverId, n]));
    for (const id of [proxy.id, member.id]) expect(await exists(`/run/netns/${nets.get(id)?.netns}`), `${id}'s namespace`).to.equal(true);
    expect(nets.get(proxy.id)?.published).to.deep.equal([networkPort]);
    const greeting = await waitFor(async () => {
      const line = await greetingOn(networkPort);
      return line?.includes(`on port ${member.gamePort}:`) ? line : undefined;
    }, { what: 'a player through the proxy reaching the member', timeoutMs: 30_000 });
    expect(greeting).to.match(/^Simcraft 1\.21\.4 on port \d+: /);
    await stop(proxy.id);
    await stop(member.id);
  });
});
