import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerDetail, Team, Webhook, WebhookEventBody } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const nodeTimings = { heartbeatIntervalMs: 200, degradedAfterMs: 1_500, unreachableAfterMs: 4_000 };

describe('webhooks hear the fleet: a real Agent, simcraft made to crash', function () {
  this.timeout(120_000);
  let f: Fleet;
  let receiver: WebhookReceiver;
  let looping: ServerDetail;
  const hooks: Record<string, string> = {};
  const to = (hookName: string) => receiver.received.filter((r) => new URL(r.path, 'http://receiver').searchParams.get('hook') === hookName);
  const events = (hookName: string) => to(hookName).map((r) => JSON.parse(r.body) as WebhookEventBody);
  const add = async (name: string, body: Record<string, unknown>) => {
    const res = await f.admin.post<Webhook>('/webhooks', { name, url: `${receiver.url}?hook=${name}`, ...body });
    expect(res.status, res.text).to.equal(201);
    hooks[name] = res.body.id;
  };

  before(async () => {
    receiver = await WebhookReceiver.start();
    f = await startFleet({ extraArgs: ['--allow-private-webhooks'], nodeTimings });
    const other = await f.admin.post<Team>('/teams', { name: 'Elsewhere' });
    await add('team', { events: ['server.crashed', 'server.crash_loop', 'server.started'], teamId: f.teamId });
    await add('discord', { events: ['server.crashed'], format: 'discord' });
    await add('fleet', { events: ['node.unreachable', 'node.healthy'] });
    await add('other-team', { events: ['server.crashed', 'server.crash_loop', 'server.started'], teamId: other.body.id });
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: 'looping', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
      restartPolicy: { maxRestarts: 1, windowSeconds: 300 },
    });
    expect(res.status, res.text).to.equal(201);
    looping = await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY');
    await writeFile(join(f.agentDir, 'servers', looping.id, 'root', 'server.properties'), 'simcraft-crash-after-ms=300\n');
    expect((await f.admin.post(`/servers/${looping.id}/start`)).status).to.equal(202);
    looping = await waitForServer(f.admin, looping.id, (s) => s.conditions.some((c) => c.reason === 'CRASH_LOOP'), 'CRASH_LOOP', 60_000);
  });
  after(async () => {
    await f.dispose();
    await receiver.close();
  });

  it('each crash reaches the team\'s webhook within a second, with how the game ended and none of its lines', async () => {
    const crashes = await waitFor(() => {
      const seen = events('team').filter((e) => e.event === 'server.crashed');
      return seen.length === 2 ? seen : undefined;
    }, { what: 'two server.crashed deliveries', explain: () => JSON.stringify(events('team')) });
    for (const crash of crashes) {
      expect(crash.server).to.deep.equal({ id: looping.id, name: 'looping', teamId: f.teamId });
      expect(crash.details).to.include({ exitCode: 1 });
      expect(crash.details).to.not.have.property('lastLines');
    }
    const lastCrashAt = Date.parse(looping.status.lastCrash!.at);
    const lastTry = to('team').find((r) => (JSON.parse(r.body) as WebhookEventBody).details.at === looping.status.lastCrash!.at)!;
    expect(lastTry.at - lastCrashAt).to.be.below(1_000);
    for (const r of receiver.received) expect(r.body).to.not.include('unexpected exception');
  });

  it('the crash loop is told once, and the starts before it', async () => {
    await waitFor(() => events('team').some((e) => e.event === 'server.crash_loop'), { what: 'server.crash_loop' });
    expect(events('team').filter((e) => e.event === 'server.crash_loop')).to.have.length(1);
    expect(events('team').filter((e) => e.event === 'server.started').length).to.be.at.least(1);
  });

  it('a Discord webhook gets Discord\'s shape, naming the server and how it ended', async () => {
    const [first] = await waitFor(() => (to('discord').length >= 1 ? to('discord') : undefined), { what: 'a Discord delivery' });
    const body = JSON.parse(first.body) as { content: string; embeds: { title: string; description: string }[] };
    expect(body.content).to.equal('looping crashed: exit code 1');
    expect(body.embeds[0].description).to.include('Server: looping');
  });

  it('another team\'s webhook hears nothing of this team\'s servers', () => {
    expect(to('other-team')).to.deep.equal([]);
  });

  it('a fleet-wide webhook hears its Node become unreachable and healthy again', async () => {
    await f.agent.kill();
    await waitFor(() => events('fleet').some((e) => e.event === 'node.unreachable'), { timeoutMs: 15_000, what: 'node.unreachable' });
    await f.startAgent();
    await waitFor(() => events('fleet').some((e) => e.event === 'node.healthy'), { timeoutMs: 20_000, what: 'node.healthy' });
    const [gone, back] = events('fleet');
    expect(gone).to.deep.include({ event: 'node.unreachable', node: { id: f.nodeId, name: 'node-1' } });
    expect(back).to.deep.include({ event: 'node.healthy', node: { id: f.nodeId, name: 'node-1' } });
  });
});
