import { expect } from 'chai';
import { connect } from 'node:net';
import type { AuditEventPage, NetworkRoutes, ServerDetail, ServerPage } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { GameClient, handshake, login, statusPing, stringAt } from '../support/minecraft-client.js';
import { expectProblem } from '../support/problems.js';
import { freePort } from '../support/sim-process.js';
import { waitFor } from '../support/wait-for.js';

const sleepingPrefix = 'Sleeping: join to wake. ';
const startingReason = 'This server is starting: join again in a moment.';

/** The description's text as a client shows it: the prefix, then the game's own description. */
function descriptionText(status: unknown): string {
  const d = (status as { description?: { text?: string; extra?: unknown[] } }).description;
  const extra = (d?.extra ?? []).map((e) => (typeof e === 'string' ? e : (e as { text?: string }).text ?? '')).join('');
  return `${d?.text ?? ''}${extra}`;
}

const refused = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => {
    socket.destroy();
    resolve(false);
  });
  socket.once('error', () => resolve(true));
});

/**
 * Sleeping servers end to end: a real Agent (pinging every second) runs simcraft, puts it to sleep
 * when nobody plays, answers its port meanwhile, and wakes it at a real login.
 */
describe('sleeping servers: stop when empty, wake on join (real Agent and simcraft)', function () {
  this.timeout(180_000);
  let f: Fleet;
  let server: ServerDetail;
  let port: number;

  const detail = async () => (await f.admin.get<ServerDetail>(`/servers/${server.id}`)).body;
  const asleep = (what: string, timeoutMs = 40_000) => waitForServer(f.admin, server.id, (s) => s.status.sleeping === true, what, timeoutMs);
  const running = (what: string) => waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.status.sleeping === undefined, what, 30_000);
  const audited = async (action: string) => (await f.admin.get<AuditEventPage>(`/audit-events?targetId=${server.id}&action=${action}`)).body.items;

  before(async () => {
    f = await startFleet({ agentArgs: ['--status-interval-ms', '1000'] });
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: 'napper', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
      sleep: { afterEmptySeconds: 10 },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.sleep).to.deep.equal({ afterEmptySeconds: 10, wakeOnJoin: true });
    server = res.body;
    port = res.body.gamePort!;
    await waitForServer(f.admin, server.id, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    await running('RUNNING');
  });
  after(async () => f.dispose());

  it('sleeps once nobody played for afterEmptySeconds: STOPPED, still desired RUNNING and CONVERGED, audited', async () => {
    const slept = await asleep('asleep');
    expect(slept.status.runtimeState).to.equal('STOPPED');
    expect(slept.desiredState).to.equal('RUNNING');
    expect(slept.convergence).to.equal('CONVERGED');
    expect(Date.parse(slept.status.sleepingSince!)).to.be.above(Date.now() - 60_000);
    const item = (await f.admin.get<ServerPage>('/servers')).body.items.find((s) => s.id === server.id);
    expect(item?.sleeping).to.equal(true);
    const events = await waitFor(async () => ((await audited('server.slept')).length > 0 ? audited('server.slept') : undefined), { what: 'server.slept audited' });
    expect(events[0].actorKind).to.equal('AGENT');
  });

  it('answers status pings with the game\'s status, 0 players and the Sleeping prefix, and no ping wakes it', async () => {
    for (let i = 0; i < 20; i++) {
      const { status, ponged } = await statusPing(port);
      expect(ponged).to.equal(true);
      expect((status as { players: { online: number; max: number } }).players).to.deep.equal({ online: 0, max: 20 });
      expect(descriptionText(status).startsWith(sleepingPrefix)).to.equal(true);
      expect((status as { version: { protocol: number } }).version.protocol, 'the game\'s own protocol').to.equal(769);
    }
    // Port-scanner noise: connect and close, random bytes, a handshake with next state 9.
    (await GameClient.connect(port)).destroy();
    const noise = await GameClient.connect(port);
    noise.send(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    // Read as the length of a packet that never completes: closed at the sleeper's 5 s.
    expect(await noise.next(10_000)).to.equal(undefined);
    const nine = await GameClient.connect(port);
    nine.send(handshake(port, 9));
    expect(await nine.next()).to.equal(undefined);
    const still = await detail();
    expect(still.status.sleeping).to.equal(true);
    expect(await audited('server.woke')).to.deep.equal([]);
  });

  it('keeps it asleep across an Agent restart: the port is answered again within 2 s of the Agent\'s start', async () => {
    await f.agent.kill('SIGTERM');
    expect(await refused(port), 'the stopped Agent answers nothing').to.equal(true);
    const agent = await f.startAgent();
    await waitFor(async () => !(await refused(port)), { timeoutMs: 10_000, intervalMs: 50, what: 'the sleeping port answered again' });
    // The Agent's own count from its process's start (node and its loader included), as it logs it.
    const logged = await waitFor(() => agent.stderr.split('\n').find((line) => line.includes('"event":"sleeping_ports"')), { what: 'the Agent saying when it answered the sleeping ports' });
    const sinceStart = (JSON.parse(logged) as { sinceProcessStartMs: number; servers: number });
    expect(sinceStart.servers).to.equal(1);
    expect(sinceStart.sinceProcessStartMs, 'the port answered within 2 s of the Agent\'s start').to.be.below(2_000);
    expect(descriptionText((await statusPing(port)).status).startsWith(sleepingPrefix)).to.equal(true);
    await waitFor(async () => (await f.admin.get<{ status: { connectionState: string } }>(`/nodes/${f.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'the Agent back' });
    const after = await detail();
    expect(after.status.sleeping).to.equal(true);
    expect(after.convergence).to.equal('CONVERGED');
  });

  it('a Controller restart wakes nothing and audits nothing again', async () => {
    const cookie = f.admin.auth.cookie!;
    f.t = await f.t.restart();
    f.admin = f.t.api.withCookie(cookie);
    await waitFor(async () => (await f.admin.get<{ status: { connectionState: string } }>(`/nodes/${f.nodeId}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 20_000, what: 'the Agent reconnected' });
    // The Agent reports every server at its connect: the report is in once the server is known CONVERGED again.
    const after = await waitForServer(f.admin, server.id, (s) => s.convergence === 'CONVERGED', 'CONVERGED after the restart');
    expect(after.status.sleeping).to.equal(true);
    expect(descriptionText((await statusPing(port)).status).startsWith(sleepingPrefix)).to.equal(true);
    expect((await audited('server.slept')).length).to.equal(1);
    expect(await audited('server.woke')).to.deep.equal([]);
  });

  it('wakes at a login, which is told the server is starting; the next login gets in and holds it awake', async () => {
    const first = await login(port, 'Alex');
    expect(first.answer?.id, 'a login disconnect').to.equal(0x00);
    expect(JSON.parse(stringAt(first.answer!))).to.deep.equal({ text: startingReason });
    first.client.destroy();
    // A flood of logins while it wakes: each is told the same (or finds the port handed to the game), and the game starts once.
    const flood = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => login(port, `Flood${i}`)));
    for (const attempt of flood) if (attempt.status === 'fulfilled') attempt.value.client.destroy();
    await running('awake after the login');
    let last = '';
    const woke = await waitFor(async () => {
      const events = await audited('server.woke');
      last = JSON.stringify({ events, status: (await detail()).status });
      return events.length > 0 ? events : undefined;
    }, { what: 'server.woke audited', explain: () => last });
    expect(woke.map((e) => e.details.player), 'one wake, by the first login').to.deep.equal(['Alex']);
    const second = await waitFor(async () => {
      const attempt = await login(port, 'Alex');
      if (attempt.answer?.id === 0x02) return attempt;
      attempt.client.destroy();
      return undefined;
    }, { timeoutMs: 20_000, what: 'a login that gets in' });
    // Held past afterEmptySeconds: a player online keeps the server awake.
    await waitForServer(f.admin, server.id, (s) => s.status.players?.online === 1, 'the player counted');
    const heldSince = Date.now();
    await waitFor(async () => Date.now() - heldSince > 13_000 || (await detail()).status.sleeping === true, { timeoutMs: 20_000, intervalMs: 500, what: 'afterEmptySeconds passed with a player' });
    expect((await detail()).status.runtimeState, 'never asleep with a player online').to.equal('RUNNING');
    second.client.destroy();
    await asleep('asleep again once the player left');
  });

  it('a start wakes it; a stop leaves it STOPPED with nothing on its port', async () => {
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    await running('woken by a start');
    expect((await f.admin.post(`/servers/${server.id}/stop`)).status).to.equal(202);
    const stopped = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'STOPPED' && s.observedGeneration === s.generation, 'STOPPED', 30_000);
    expect(stopped.status.sleeping).to.equal(undefined);
    expect(await refused(port), 'no sleeper on a stopped server\'s port').to.equal(true);
  });

  it('turns sleep off with null, and refuses it on the proxy naming body.sleep', async () => {
    const off = await f.admin.patch<ServerDetail>(`/servers/${server.id}`, { sleep: null });
    expect(off.status, off.text).to.equal(200);
    expect(off.body).to.not.have.property('sleep');
    expectProblem(await f.admin.patch(`/servers/${server.id}`, { sleep: { afterEmptySeconds: 5 } }), 400, 'invalid_request', 'body.sleep');
    const proxy = await f.admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } });
    expect(proxy.status, proxy.text).to.equal(201);
    expectProblem(await f.admin.patch(`/servers/${proxy.body.id}`, { sleep: { afterEmptySeconds: 60 } }), 400, 'invalid_request', 'body.sleep');
  });
});

/** The same in a box: the game in a network namespace of its own, its port published on the host only while it runs. */
describe('sleeping servers in a box (real Agent as root, isolation auto)', function () {
  this.timeout(120_000);
  let f: Fleet;

  before(async () => {
    f = await startFleet({ agentArgs: ['--status-interval-ms', '1000', '--isolation', 'auto'] });
  });
  after(async () => f.dispose());

  it('sleeps, answers its port from the host, and wakes into its box at a login', async () => {
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: 'boxed-napper', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
      sleep: { afterEmptySeconds: 10 },
    });
    expect(res.status, res.text).to.equal(201);
    const port = res.body.gamePort!;
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${res.body.id}/start`)).status).to.equal(202);
    await waitForServer(f.admin, res.body.id, (s) => s.status.players !== undefined, 'pinged in its box', 30_000);
    await waitForServer(f.admin, res.body.id, (s) => s.status.sleeping === true, 'asleep', 40_000);
    expect(descriptionText((await statusPing(port)).status).startsWith(sleepingPrefix)).to.equal(true);
    const first = await login(port, 'Steve');
    expect(JSON.parse(stringAt(first.answer!))).to.deep.equal({ text: startingReason });
    first.client.destroy();
    const inside = await waitFor(async () => {
      const attempt = await login(port, 'Steve').catch(() => undefined);
      if (attempt?.answer?.id === 0x02) return attempt;
      attempt?.client.destroy();
      return undefined;
    }, { timeoutMs: 30_000, intervalMs: 200, what: 'a login into the woken, boxed game' });
    inside.client.destroy();
  });
});

/** Behind the network's proxy: a member asleep stays routed, and a player sent to it wakes it. */
describe('a sleeping member behind the network\'s proxy (real Agent, simproxy, simcraft)', function () {
  this.timeout(120_000);
  let f: Fleet;

  before(async () => {
    f = await startFleet({ agentArgs: ['--status-interval-ms', '1000'] });
    const patched = await f.admin.patch('/network', { port: await freePort() });
    expect(patched.status, patched.text).to.equal(200);
  });
  after(async () => f.dispose());

  it('stays in the routes while asleep; a login through the proxy is told it starts and wakes it, then gets in', async () => {
    const small = { cpuMillis: 200, memoryBytes: GiB / 8 };
    const proxy = await f.admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources: small });
    expect(proxy.status, proxy.text).to.equal(201);
    const member = await f.admin.post<ServerDetail>('/servers', {
      name: 'dozing-member', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: small, inNetwork: true, sleep: { afterEmptySeconds: 10 },
    });
    expect(member.status, member.text).to.equal(201);
    for (const s of [proxy.body, member.body]) {
      await waitForServer(f.admin, s.id, (d) => d.phase === 'READY', `${s.name} READY`);
      expect((await f.admin.post(`/servers/${s.id}/start`)).status).to.equal(202);
    }
    const routedTo = async () => (await f.admin.get<NetworkRoutes>('/network/routes')).body.items.map((r) => r.serverId);
    await waitFor(async () => (await routedTo()).includes(member.body.id), { timeoutMs: 30_000, what: 'the member routed' });
    await waitForServer(f.admin, member.body.id, (s) => s.status.sleeping === true, 'the member asleep', 40_000);
    await waitFor(async () => (await routedTo()).includes(member.body.id), { what: 'the sleeping member still routed' });
    const networkPort = proxy.body.gamePort!;
    const told = await waitFor(async () => {
      const attempt = await login(networkPort, 'Rover').catch(() => undefined);
      attempt?.client.destroy();
      return attempt?.answer?.id === 0x00 ? attempt.answer : undefined;
    }, { timeoutMs: 10_000, intervalMs: 200, what: 'the member\'s reason through the proxy' });
    expect(JSON.parse(stringAt(told))).to.deep.equal({ text: startingReason });
    await waitForServer(f.admin, member.body.id, (s) => s.status.runtimeState === 'RUNNING', 'the member awake', 30_000);
    const woke = (await f.admin.get<AuditEventPage>(`/audit-events?targetId=${member.body.id}&action=server.woke`)).body.items;
    expect(woke.map((e) => e.details.player)).to.deep.equal(['Rover']);
    const inside = await waitFor(async () => {
      const attempt = await login(networkPort, 'Rover').catch(() => undefined);
      if (attempt?.answer?.id === 0x02) return attempt;
      attempt?.client.destroy();
      return undefined;
    }, { timeoutMs: 30_000, intervalMs: 200, what: 'a login through the proxy into the woken member' });
    inside.client.destroy();
  });
});
