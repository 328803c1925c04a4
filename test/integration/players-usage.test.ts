import { expect } from 'chai';
import type { Node, ServerDetail, ServerPage, ServerUsage } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Players and usage with a real Agent at its default 10-second status interval: it pings simcraft
 * with the Server List Ping and keeps the server's usage history, which the API asks it for.
 */
describe('players online and usage history (real Agent, simcraft pinged every 10 s)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let server: ServerDetail;

  const metricValue = async (template: string) => {
    const text = (await f.t.api.get('/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith(`cairn_players_online{template="${template}"} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  };

  before(async () => {
    f = await startFleet();
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: 'pinged', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
    });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${res.body.id}/start`)).status).to.equal(202);
    server = await waitForServer(f.admin, res.body.id, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);
  });
  after(async () => f.dispose());

  it('shows players online in the detail, the list and the metric once the Agent has pinged', async () => {
    const detail = await waitForServer(f.admin, server.id, (s) => s.status.players !== undefined, 'players reported', 25_000);
    expect(detail.status.players).to.deep.equal({ online: 0, max: 20 });
    const page = (await f.admin.get<ServerPage>('/servers')).body;
    expect(page.items.find((s) => s.id === server.id)?.playersOnline).to.equal(0);
    expect(await metricValue('simcraft')).to.equal(0);
  });

  it('reports a change of players within 20 seconds', async () => {
    expect((await f.admin.post(`/servers/${server.id}/console/commands`, { command: 'fakeplayers 5' })).status).to.equal(200);
    const changed = Date.now();
    const detail = await waitForServer(f.admin, server.id, (s) => s.status.players?.online === 5, 'five players reported', 20_000);
    expect(detail.status.players).to.deep.equal({ online: 5, max: 20 });
    expect(Date.now() - changed).to.be.below(20_000);
    expect(await metricValue('simcraft')).to.equal(5);
  });

  it('answers the usage history from the Agent: samples of CPU, memory and players, oldest first', async () => {
    const usage = await waitFor(async () => {
      const res = await f.admin.get<ServerUsage>(`/servers/${server.id}/usage?window=10m`);
      expect(res.status, res.text).to.equal(200);
      return res.body.items.some((s) => s.playersOnline === 5) ? res.body : undefined;
    }, { timeoutMs: 25_000, what: 'a sample with five players' });
    expect(usage.window).to.equal('10m');
    expect(usage.intervalSeconds).to.equal(10);
    expect(usage.items.length).to.be.within(1, 60);
    const times = usage.items.map((s) => Date.parse(s.at));
    expect(times).to.deep.equal([...times].sort((a, b) => a - b));
    expect(times[0]).to.be.above(Date.now() - 10 * 60_000);
    for (const sample of usage.items) {
      expect(sample.memoryBytes, 'a running simcraft uses some memory').to.be.above(1_000_000);
      expect(sample.cpuMillis, 'CPU as thousandths of a core, not CPU time').to.be.within(0, 8_000);
    }
    expect((await f.admin.get<ServerUsage>(`/servers/${server.id}/usage`)).body.window, 'the default window').to.equal('1h');
    const day = (await f.admin.get<ServerUsage>(`/servers/${server.id}/usage?window=24h`)).body;
    expect(day.intervalSeconds).to.equal(60);
    expect(day.items.length).to.be.at.most(1440);
  });

  it('refuses a window it does not know, naming the parameter', async () => {
    expectProblem(await f.admin.get(`/servers/${server.id}/usage?window=2h`), 400, 'invalid_request', 'query.window');
  });

  it('keeps the usage history across a graceful restart of its Agent (the game runs on)', async () => {
    const before = (await f.admin.get<ServerUsage>(`/servers/${server.id}/usage?window=10m`)).body.items;
    expect(before.length).to.be.above(0);
    const restartedAt = Date.now();
    await f.agent.kill('SIGTERM');
    await f.startAgent();
    await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 20_000, what: 'the Agent back' });
    const after = await waitFor(async () => {
      const res = await f.admin.get<ServerUsage>(`/servers/${server.id}/usage?window=10m`);
      return res.status === 200 && res.body.items.length > 0 ? res.body.items : undefined;
    }, { timeoutMs: 20_000, what: 'the usage history after the restart' });
    const samplesBefore = after.filter((s) => Date.parse(s.at) < restartedAt).map((s) => s.at);
    expect(samplesBefore, 'the samples taken before the restart').to.include.members(before.map((s) => s.at));
    expect(after.some((s) => s.playersOnline === 5)).to.equal(true);
  });

  it('forgets the players when the server stops, and answers node_unavailable while its Node is gone', async () => {
    expect((await f.admin.post(`/servers/${server.id}/stop`)).status).to.equal(202);
    const stopped = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 30_000);
    expect(stopped.status).to.not.have.property('players');
    expect(stopped.playersOnline).to.equal(undefined);
    await waitFor(async () => ((await metricValue('simcraft')) === undefined ? true : undefined), { what: 'the players metric without simcraft' });
    await f.agent.kill();
    expectProblem(await f.admin.get(`/servers/${server.id}/usage?window=1h`), 503, 'node_unavailable');
  });
});
