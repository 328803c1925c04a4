import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SimproxyConfigSpec } from '../../src/shared/simproxy-config.js';
import type { AuditEventPage, Network, NetworkRoutes, ServerDetail } from '../support/api-types.js';
import { greetingOn } from '../support/game-processes.js';
import { GiB, startFleet, waitForServer, type ExtraNode, type Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { freePort } from '../support/sim-process.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const simproxy = { template: 'simproxy', version: '3.4.0' };
const small = { cpuMillis: 200, memoryBytes: GiB / 8 };
const running = (s: ServerDetail) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';

describe('network end to end: two Agents, simproxy and two simcraft members', function () {
  this.timeout(120_000);
  let f: Fleet;
  let second: ExtraNode;
  let networkPort: number;
  let proxy: ServerDetail;
  let lobby: ServerDetail;
  let arena: ServerDetail;

  const routes = async () => {
    const res = await f.admin.get<NetworkRoutes>('/network/routes');
    expect(res.status, res.text).to.equal(200);
    return res.body.items;
  };
  const routeNames = async () => (await routes()).map((r) => r.name);
  const proxyConfig = async () => {
    const res = await f.admin.get(`/servers/${proxy.id}/files/content?path=simproxy.json`);
    expect(res.status, res.text).to.equal(200);
    return JSON.parse(res.text) as SimproxyConfigSpec;
  };
  const createMember = async (name: string, nodeId: string, inNetwork = true) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: simcraft, resources: small, nodeId, inNetwork });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', `${name} READY`);
    return res.body;
  };
  const startAndWait = async (server: ServerDetail) => {
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    return waitForServer(f.admin, server.id, (s) => running(s) && s.observedGeneration === s.generation, `${server.name} RUNNING`);
  };
  const greets = (server: ServerDetail) => (line: string | null) => line?.includes(`on port ${server.gamePort}:`) === true;

  before(async () => {
    f = await startFleet();
    second = await f.addNode('node-2');
    // A private high port for the network: the usual Minecraft port belongs to whatever else runs on this machine.
    networkPort = await freePort();
    const patched = await f.admin.patch('/network', { port: networkPort });
    expect(patched.status, patched.text).to.equal(200);
  });
  after(async () => f.dispose());

  it('POST /network/proxy creates the one PROXY server on the network port; it installs and starts like any server', async () => {
    const res = await f.admin.post<ServerDetail>('/network/proxy', { software: simproxy, resources: small, nodeId: f.nodeId });
    expect(res.status, res.text).to.equal(201);
    proxy = res.body;
    expect(proxy).to.include({ kind: 'PROXY', inNetwork: false, gamePort: networkPort, nodeId: f.nodeId, name: 'proxy', phase: 'PROVISIONING' });
    expect((await f.admin.get<Network>('/network')).body.proxyServerId).to.equal(proxy.id);
    await waitForServer(f.admin, proxy.id, (s) => s.phase === 'READY', 'proxy READY');
    await startAndWait(proxy);
    expect(await greetingOn(networkPort)).to.equal(null);
  });

  it('refuses a second proxy, and the proxy joining the network', async () => {
    expectProblem(await f.admin.post('/network/proxy', { software: simproxy, resources: small }), 409, 'conflict');
    expectProblem(await f.admin.patch(`/servers/${proxy.id}`, { inNetwork: true }), 409, 'not_network_capable');
  });

  it('refuses a member of a template that cannot join (vanilla)', async () => {
    const res = await f.admin.post('/servers', { name: 'plain', teamId: f.teamId, software: { template: 'vanilla', version: '1.21.4' }, resources: small, inNetwork: true });
    expectProblem(res, 409, 'not_network_capable');
  });

  it('members started as members are routed to, at their Node\'s address, in name order; a client reaches the first', async () => {
    lobby = await createMember('lobby', f.nodeId);
    arena = await createMember('arena', second.nodeId);
    expect(await routes()).to.deep.equal([]);
    await startAndWait(lobby);
    await startAndWait(arena);
    await waitFor(async () => (await routeNames()).join() === 'arena,lobby' || undefined, { what: 'both routes' });
    const items = await routes();
    expect(items[0]).to.deep.equal({ serverId: arena.id, name: 'arena', address: '127.0.0.1', port: arena.gamePort });
    await waitFor(async () => greets(arena)(await greetingOn(networkPort)) || undefined, { what: 'a client through the proxy reaching arena' });
  });

  it('the lobby goes first: a client through the network port reads the lobby\'s greeting', async () => {
    const patched = await f.admin.patch<Network>('/network', { lobbyServerId: lobby.id });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.lobbyServerId).to.equal(lobby.id);
    expect(await routeNames()).to.deep.equal(['lobby', 'arena']);
    await waitFor(async () => (await proxyConfig()).lobbyServerId === lobby.id || undefined, { timeoutMs: 1000, what: 'the proxy told of the lobby' });
    // simproxy re-reads its file a moment after it changes; from then on every client lands in the lobby.
    const greeting = await waitFor(async () => {
      const line = await greetingOn(networkPort);
      return greets(lobby)(line) ? line : undefined;
    }, { timeoutMs: 1000, what: 'a client through the proxy reaching the lobby' });
    expect(greeting).to.equal(`Simcraft 1.21.4 on port ${lobby.gamePort}: A Minecraft Server`);
    expect(greets(lobby)(await greetingOn(networkPort))).to.equal(true);
  });

  it('the proxy\'s players are what the network address answers a Server List Ping with (simproxy: the lobby\'s)', async () => {
    expect((await f.admin.post(`/servers/${lobby.id}/console/commands`, { command: 'fakeplayers 6' })).status).to.equal(200);
    const lobbyNow = await waitForServer(f.admin, lobby.id, (s) => s.status.players?.online === 6, 'the lobby\'s six players', 25_000);
    const proxyNow = await waitForServer(f.admin, proxy.id, (s) => s.status.players?.online === 6, 'six players through the proxy', 25_000);
    expect(proxyNow.status.players).to.deep.equal(lobbyNow.status.players);
  });

  it('PATCH /network refuses a lobby that is not a member', async () => {
    expectProblem(await f.admin.patch('/network', { lobbyServerId: proxy.id }), 409, 'conflict');
    expectProblem(await f.admin.patch('/network', { lobbyServerId: '0190a1b2-0000-7000-8000-00000000dead' }), 400, 'invalid_request', 'body.lobbyServerId');
  });

  it('the lobby stopped: it leaves the routes and clients reach the other member', async () => {
    await f.admin.post(`/servers/${lobby.id}/stop`);
    expect(await routeNames()).to.deep.equal(['arena']);
    await waitForServer(f.admin, lobby.id, (s) => s.status.runtimeState === 'STOPPED', 'lobby STOPPED');
    expect(greets(arena)(await greetingOn(networkPort))).to.equal(true);
    await startAndWait(lobby);
    await waitFor(async () => (await routeNames()).join() === 'lobby,arena' || undefined, { what: 'the lobby routed again' });
  });

  it('PATCH a member\'s Node address: GET /network/routes and the proxy\'s live config follow within a second, without a restart', async () => {
    const before = (await f.admin.get<ServerDetail>(`/servers/${proxy.id}`)).body;
    const res = await f.admin.patch(`/nodes/${second.nodeId}`, { address: 'localhost' });
    expect(res.status, res.text).to.equal(200);
    const arenaRoute = async () => (await routes()).find((r) => r.serverId === arena.id)?.address;
    await waitFor(async () => (await arenaRoute()) === 'localhost' || undefined, { timeoutMs: 1000, what: 'the route at the new address' });
    await waitFor(async () => (await proxyConfig()).routes.find((r) => r.name === 'arena')?.address === 'localhost' || undefined, { timeoutMs: 1000, what: 'the proxy\'s config at the new address' });
    await f.admin.patch(`/nodes/${second.nodeId}`, { address: '' });
    await waitFor(async () => (await proxyConfig()).routes.find((r) => r.name === 'arena')?.address === '127.0.0.1' || undefined, { timeoutMs: 1000, what: 'the observed address again' });
    const after = (await f.admin.get<ServerDetail>(`/servers/${proxy.id}`)).body;
    expect(after.status.startedAt).to.equal(before.status.startedAt);
    expect(after.generation).to.equal(before.generation);
  });

  it('members get the network\'s settings: online-mode=false and the proxy\'s forwarding secret, which the API never shows', async () => {
    const memberRoot = join(f.agentDir, 'servers', lobby.id, 'root');
    const proxyRoot = join(f.agentDir, 'servers', proxy.id, 'root');
    const secret = await readFile(join(proxyRoot, 'forwarding.secret'), 'utf8');
    expect(secret).to.match(/^[A-Za-z0-9]{40}$/);
    expect(await readFile(join(memberRoot, 'server.properties'), 'utf8')).to.match(/^online-mode=false$/m);
    const paper = await readFile(join(memberRoot, 'config', 'paper-global.yml'), 'utf8');
    expect(paper).to.include(`secret: ${secret}`).and.to.match(/enabled: true/);
    expectProblem(await f.admin.patch(`/servers/${lobby.id}/properties`, { 'online-mode': 'true' }), 400, 'managed_property', 'online-mode');
    const network = await f.admin.get('/network');
    const audit = await f.admin.get<AuditEventPage>('/audit-events?limit=200');
    for (const text of [network.text, audit.text, (await f.admin.get(`/servers/${proxy.id}`)).text]) expect(text).to.not.include(secret);
    const actions = audit.body.items.map((e) => e.action);
    expect(actions).to.include.members(['network.update', 'network.proxy.create']);
  });

  it('joining while running shows RESTART_PENDING and is routed only after the restart; leaving likewise, and clears the lobby', async () => {
    const late = await createMember('late', second.nodeId, false);
    await startAndWait(late);
    const joined = await f.admin.patch<ServerDetail>(`/servers/${late.id}`, { inNetwork: true });
    expect(joined.body.markers).to.deep.equal(['RESTART_PENDING']);
    await waitForServer(f.admin, late.id, (s) => s.observedGeneration === s.generation, 'the join observed');
    expect(await routeNames()).to.not.include('late');
    await f.admin.post(`/servers/${late.id}/restart`);
    await waitForServer(f.admin, late.id, (s) => running(s) && s.observedGeneration === s.generation && s.markers.length === 0, 'restarted as a member');
    await waitFor(async () => (await routeNames()).includes('late') || undefined, { what: 'late routed' });
    expect((await f.admin.get<ServerDetail>(`/servers/${late.id}`)).body.markers).to.deep.equal([]);

    await f.admin.patch('/network', { lobbyServerId: late.id });
    const left = await f.admin.patch<ServerDetail>(`/servers/${late.id}`, { inNetwork: false });
    expect(left.body.markers).to.deep.equal(['RESTART_PENDING']);
    expect((await f.admin.get<Network>('/network')).body.lobbyServerId).to.equal(undefined);
    expect(await routeNames()).to.deep.equal(['arena', 'late', 'lobby']);
    await f.admin.post(`/servers/${late.id}/restart`);
    await waitForServer(f.admin, late.id, (s) => running(s) && s.observedGeneration === s.generation && s.markers.length === 0, 'restarted outside the network');
    await waitFor(async () => (await routeNames()).join() === 'arena,lobby' || undefined, { what: 'late no longer routed' });
    const properties = await readFile(join(second.agentDir, 'servers', late.id, 'root', 'server.properties'), 'utf8');
    expect(properties).to.match(/^online-mode=true$/m);
  });

  it('deleting a member drops its route at once, and the proxy follows', async () => {
    await f.admin.delete(`/servers/${arena.id}`);
    expect(await routeNames()).to.deep.equal(['lobby']);
    await waitFor(async () => (await proxyConfig()).routes.map((r) => r.name).join() === 'lobby' || undefined, { timeoutMs: 1000, what: 'the proxy without arena' });
  });
});
