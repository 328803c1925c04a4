import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerDetail, Webhook, WebhookDelivery, WebhookEventBody } from '../support/api-types.js';
import { adminCredentials } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { sessionCookieFrom } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('webhooks: a crash while no Controller was up is told when the Agent reports again (real Agent)', function () {
  this.timeout(180_000);
  let f: Fleet;
  let receiver: WebhookReceiver;
  let hook: Webhook;
  let server: ServerDetail;
  const events = () => receiver.received.map((r) => JSON.parse(r.body) as WebhookEventBody);
  const crashes = () => events().filter((e) => e.event === 'server.crashed');
  const gamePid = async () =>
    (JSON.parse(await readFile(join(f.agentDir, 'servers', server.id, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;
  /** A new Controller on the same store; the Agent reconnects to its link and reports every server. */
  const restartController = async () => {
    f.t = await f.t.restart();
    const login = await f.t.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    f.admin = f.t.api.withCookie(sessionCookieFrom(login));
  };
  /** The new Controller heard the Agent's report of the crash (its lastCrash lives only in memory, from reports). */
  const crashHeard = (at: string) => waitForServer(f.admin, server.id, (s) => s.status.lastCrash?.at === at && s.status.runtimeState === 'RUNNING', 'the crash reported again', 30_000);
  /** A test event sent after the report was heard: once it arrives, anything the report told is stored and sent too. */
  const flush = async () => {
    const sent = await f.admin.post<WebhookDelivery>(`/webhooks/${hook.id}/test`);
    expect(sent.status, sent.text).to.equal(202);
    await waitFor(() => receiver.of(sent.body.id).length === 1, { what: 'the test delivery' });
  };

  before(async () => {
    receiver = await WebhookReceiver.start();
    f = await startFleet({ extraArgs: ['--allow-private-webhooks'] });
    const created = await f.admin.post<Webhook>('/webhooks', { name: 'pager', url: receiver.url, events: ['server.crashed', 'server.started', 'server.stopped', 'server.crash_loop'] });
    expect(created.status, created.text).to.equal(201);
    hook = created.body;
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: 'lobby', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
    });
    expect(res.status, res.text).to.equal(201);
    server = await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    server = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING');
    await waitFor(() => events().some((e) => e.event === 'server.started'), { what: 'server.started' });
  });
  after(async () => {
    await f.dispose();
    await receiver.close();
  });

  it('the game killed while the Controller is stopped: exactly one server.crashed, with how it ended; a second restart sends nothing more', async () => {
    await f.t.stop();
    const before = await gamePid();
    process.kill(before, 'SIGKILL');
    // The Agent alone sees the crash and restarts the game under the restart policy.
    await waitFor(async () => (await gamePid()) !== before, { timeoutMs: 20_000, what: 'the Agent to restart the game' });
    expect(crashes()).to.deep.equal([]);

    await restartController();
    const [crash] = await waitFor(() => (crashes().length > 0 ? crashes() : undefined), { timeoutMs: 30_000, what: 'server.crashed after the restart', explain: () => JSON.stringify(events()) });
    expect(crash.server).to.deep.equal({ id: server.id, name: 'lobby', teamId: f.teamId });
    expect(crash.details).to.include({ signal: 'SIGKILL' });
    expect(crash.details).to.not.have.property('lastLines');
    const heard = await crashHeard(crash.details.at as string);
    await flush();
    expect(crashes()).to.have.length(1);
    // The game restarted by the Agent may still have been starting when it reported: its start is then told too.
    const told = events().filter((e) => e.event !== 'webhook.test').map((e) => e.id);

    await restartController();
    await crashHeard(heard.status.lastCrash!.at);
    await flush();
    expect(events().filter((e) => e.event !== 'webhook.test').map((e) => e.id), 'after a second restart').to.deep.equal(told);
  });
});
