import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreatedApiToken, Team, Webhook, WebhookDelivery, WebhookDeliveryPage, WebhookPage } from '../support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

/** `cairn create|get|delete webhook`, as users run it (the built binary, `npm run build` first). */
describe('cairn create webhook, get webhooks, delete webhook', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let home: string;
  let teamId: string;
  // Never contacted: no event these webhooks hear happens here. A loopback URL needs --allow-private-webhooks.
  const url = 'http://127.0.0.1:9/hook';
  const secret = 'a-secret-of-at-least-16-chars';
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: { CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' }, stdin });
  const listed = async () => (await admin.get<WebhookPage>('/webhooks')).body.items;

  before(async () => {
    t = await startTestController({ extraArgs: ['--allow-private-webhooks'] });
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-webhooks-'));
    const login = await cairn(['login', '--url', t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(login.code, login.stderr).to.equal(0);
  });
  after(async () => {
    await t.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('creates a team\'s webhook: --event repeated or comma-separated, --team by name', async () => {
    const res = await cairn(['create', 'webhook', 'ops-alerts', '--url', url, '--event', 'server.crashed', '--event', 'backup.failed,server.started', '--team', 'Ops']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal('webhook/ops-alerts created\n');
    const hook = (await listed()).find((w) => w.name === 'ops-alerts');
    expect(hook).to.deep.include({ url, format: 'json', events: ['server.crashed', 'backup.failed', 'server.started'], teamId, hasSecret: false });
  });

  it('creates a fleet-wide Discord webhook whose secret is read from stdin, never printed', async () => {
    const res = await cairn(['create', 'webhook', 'fleet', '--url', url, '--event', 'node.unreachable', '--format', 'discord', '--secret-stdin', '-o', 'json'], `${secret}\n`);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.not.include(secret);
    const created = JSON.parse(res.stdout) as Webhook;
    expect(created).to.deep.include({ name: 'fleet', format: 'discord', events: ['node.unreachable'], hasSecret: true }).and.not.have.property('teamId');
  });

  it('its --url is the webhook\'s: the Controller\'s goes before the verb', async () => {
    const token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-webhooks' })).body.token;
    const res = await runBuilt('cli', ['--url', t.baseUrl, 'create', 'webhook', 'elsewhere', '--url', `${url}/2`, '--event', 'backup.succeeded', '--team', 'Ops'], {
      env: { CAIRN_CREDENTIALS: join(home, 'none.json'), CAIRN_URL: '', CAIRN_TOKEN: token },
    });
    expect(res.code, res.stderr).to.equal(0);
    expect((await listed()).find((w) => w.name === 'elsewhere')).to.deep.include({ url: `${url}/2`, teamId });
    expect((await cairn(['delete', 'webhook', 'elsewhere'])).code).to.equal(0);
  });

  it('get webhooks lists them with their team; get webhook NAME shows one', async () => {
    const res = await cairn(['get', 'webhooks']);
    expect(res.code, res.stderr).to.equal(0);
    const lines = res.stdout.trim().split('\n').map((l) => l.split(/\s{3,}/));
    expect(lines[0]).to.deep.equal(['NAME', 'TEAM', 'FORMAT', 'EVENTS']);
    expect(lines.slice(1)).to.deep.equal([
      ['ops-alerts', 'Ops', 'json', 'server.crashed,backup.failed,server.started'],
      ['fleet', '<fleet>', 'discord', 'node.unreachable'],
    ]);
    const one = await cairn(['get', 'webhook', 'fleet', '-o', 'json']);
    expect(one.code, one.stderr).to.equal(0);
    expect(JSON.parse(one.stdout)).to.deep.include({ name: 'fleet', url });
  });

  it('an event the API does not know, or a Node event on a team\'s webhook, is refused with the API\'s problem naming body.events', async () => {
    const unknown = await cairn(['create', 'webhook', 'typo', '--url', url, '--event', 'server.exploded']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('body.events');
    const fleetOnly = await cairn(['create', 'webhook', 'nodes', '--url', url, '--event', 'node.healthy', '--team', 'Ops']);
    expect(fleetOnly.code).to.equal(1);
    expect(fleetOnly.stderr).to.include('body.events: node.healthy reaches fleet-wide webhooks only');
    expect((await listed()).map((w) => w.name)).to.deep.equal(['ops-alerts', 'fleet']);
  });

  it('describe webhook NAME shows its fields without the secret, its events, and its latest deliveries with their last error', async () => {
    const fleet = (await listed()).find((w) => w.name === 'fleet')!;
    const sent = await admin.post<WebhookDelivery>(`/webhooks/${fleet.id}/test`);
    expect(sent.status, sent.text).to.equal(202);
    // Port 9 refuses: the first try fails and the delivery waits for its next.
    const tried = await waitFor(async () => {
      const d = (await admin.get<WebhookDeliveryPage>(`/webhooks/${fleet.id}/deliveries`)).body.items.find((x) => x.id === sent.body.id);
      return d && d.attempts >= 1 && d.lastError !== undefined ? d : undefined;
    }, { what: 'the first try to fail' });
    const res = await cairn(['describe', 'webhook', 'fleet']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.not.include(secret);
    expect(res.stdout).to.match(/^Name:\s+fleet$/m);
    expect(res.stdout).to.match(new RegExp(`^ID:\\s+${fleet.id}$`, 'm'));
    expect(res.stdout).to.match(/^Team:\s+<fleet>/m);
    expect(res.stdout).to.match(new RegExp(`^URL:\\s+${url.replace(/\./g, '\\.')}$`, 'm'));
    expect(res.stdout).to.match(/^Format:\s+discord$/m);
    expect(res.stdout).to.match(/^Signed:\s+yes/m);
    expect(res.stdout).to.include('Events:\n  node.unreachable\n');
    const [header, row] = res.stdout.slice(res.stdout.indexOf('Deliveries (newest first):\n')).split('\n').slice(1, 3).map((l) => l.trim().split(/\s{3,}/));
    expect(header).to.deep.equal(['CREATED', 'EVENT', 'STATE', 'ATTEMPTS', 'LAST-STATUS', 'LAST-ERROR', 'ID']);
    expect(row.slice(0, 3)).to.deep.equal([tried.createdAt, 'webhook.test', 'PENDING']);
    expect(Number(row[3])).to.be.at.least(1);
    expect(row[4]).to.equal('<none>');
    expect(row[6]).to.equal(sent.body.id);

    const doc = JSON.parse((await cairn(['describe', 'webhook', fleet.id, '-o', 'json'])).stdout) as Webhook & { deliveries: WebhookDelivery[] };
    expect(doc).to.deep.include({ id: fleet.id, hasSecret: true }).and.not.have.property('secret');
    expect(doc.deliveries.map((d) => d.id)).to.deep.equal([sent.body.id]);
    const team = await cairn(['describe', 'webhook', 'ops-alerts']);
    expect(team.stdout).to.match(/^Team:\s+Ops$/m);
    expect(team.stdout).to.match(/^Signed:\s+no$/m);
    expect(team.stdout).to.include('Deliveries: <none>\n');
    const unknown = await cairn(['describe', 'webhook', 'pager']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('webhook "pager" not found');
  });

  it('delete webhook NAME removes it', async () => {
    const res = await cairn(['delete', 'webhook', 'ops-alerts']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal('webhook/ops-alerts deleted\n');
    expect((await listed()).map((w) => w.name)).to.deep.equal(['fleet']);
  });
});
