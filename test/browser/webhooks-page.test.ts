import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { RolePage, Team, Webhook, WebhookPage } from '../support/api-types.js';
import { adminCredentials, createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { description, desktop, expectNoSidewaysScroll, openSection, phone, screenshot, signedInPage } from './support-admin.js';

/**
 * The Webhooks page against a real Controller (allowed to send to 127.0.0.1) and a local receiver:
 * a webhook made with the form, a refused URL shown at its field, `Send test` followed to DELIVERED
 * in the page and at the receiver, and Delete.
 */
describe('web UI: the Webhooks page', function () {
  this.timeout(90_000);
  let t: TestController;
  let admin: ApiClient;
  let teamId: string;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const name = 'ops-alerts';

  const listed = async () => (await admin.get<WebhookPage>('/webhooks')).body.items;

  before(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestController({ extraArgs: ['--allow-private-webhooks'] });
    ({ admin } = await setupAdmin(t));
    const team = await admin.post<Team>('/teams', { name: 'Ops' });
    expect(team.status, team.text).to.equal(201);
    teamId = team.body.id;
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors, adminCredentials, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await t?.dispose();
    await receiver?.close();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `failed-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('Webhooks is in the main navigation, which shows every section at 1280 px rather than scrolling some out of sight', async () => {
    await openSection(page, 'Webhooks', 'Webhooks');
    // A string, evaluated in the page: the test's TypeScript has no DOM types.
    const nav = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
      '(({ scrollWidth, clientWidth }) => ({ scrollWidth, clientWidth }))(document.querySelector(".main-nav ul"))',
    );
    expect(nav.scrollWidth, 'the sections\' width').to.be.at.most(nav.clientWidth);
  });

  it('New webhook: a team drops the Node events, a URL the API refuses is shown at its field, then the webhook is created', async () => {
    const form = page.getByRole('form', { name: 'New webhook', exact: true });
    await form.getByLabel('Name', { exact: true }).fill(name);
    await form.getByLabel('URL', { exact: true }).fill('ftp://example.com/hook');
    await form.getByLabel('server.crashed', { exact: true }).check();
    await form.getByLabel('node.unreachable', { exact: true }).check();
    await form.getByLabel('Team', { exact: true }).selectOption({ label: 'Ops' });
    // A team's webhook hears its servers only: the Node events are no longer offered, nor kept.
    expect(await form.getByLabel('node.unreachable', { exact: true }).count()).to.equal(0);

    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.getByRole('alert').filter({ hasText: 'Must be http or https.' }).waitFor();
    const url = form.getByLabel('URL', { exact: true });
    expect(await url.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(page, url), 'the problem is the URL\'s').to.include('Must be http or https.');
    expect(await listed()).to.deep.equal([]);

    await url.fill(receiver.url);
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.getByRole('status').filter({ hasText: `Webhook ${name} created.` }).waitFor();
    const [created] = await listed();
    expect(created).to.deep.include({ name, url: receiver.url, format: 'json', events: ['server.crashed'], teamId, hasSecret: false });
    const row = page.getByRole('table', { name: 'Webhooks' }).getByRole('row').filter({ hasText: name });
    await row.getByRole('cell', { name: 'Ops', exact: true }).waitFor();
  });

  it('Send test: the delivery shows DELIVERED with the answer, and the receiver got it', async () => {
    await page.getByRole('button', { name: `Send test to ${name}`, exact: true }).click();
    const deliveries = page.getByRole('table', { name: `Deliveries of ${name}` });
    const row = deliveries.getByRole('row').filter({ hasText: 'webhook.test' });
    await row.getByRole('cell', { name: 'DELIVERED', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'HTTP 200', exact: true }).waitFor();
    const got = await waitFor(() => receiver.received.find((r) => r.headers['cairn-event'] === 'webhook.test'), { what: 'the test delivery at the receiver' });
    expect(JSON.parse(got.body)).to.deep.include({ event: 'webhook.test' });
    await screenshot(page, 'webhooks-page');
    // On a phone the tables keep their essential columns (the state, the answer, the actions) without pushing the page sideways.
    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    await row.getByRole('cell', { name: 'DELIVERED', exact: true }).waitFor();
    await screenshot(page, 'webhooks-page-phone');
    await page.setViewportSize(desktop);
  });

  it('Edit: the New form\'s controls filled in, its team fixed; a refused URL shown at its field; Save changes it and a new secret signs; Cancel changes nothing', async () => {
    await page.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
    const form = page.getByRole('form', { name: `Edit webhook ${name}`, exact: true });
    const url = form.getByLabel('URL', { exact: true });
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).to.equal(name);
    expect(await url.inputValue()).to.equal(receiver.url);
    expect(await form.getByLabel('server.crashed', { exact: true }).isChecked()).to.equal(true);
    const team = form.getByLabel('Team', { exact: true });
    expect(await team.isDisabled(), 'a webhook keeps its team').to.equal(true);
    expect(await team.inputValue()).to.equal(teamId);
    expect(await form.getByLabel('New secret (optional)', { exact: true }).inputValue(), 'the secret is never shown').to.equal('');

    await url.fill('ftp://example.com/hook');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByRole('alert').filter({ hasText: 'Must be http or https.' }).waitFor();
    expect(await url.getAttribute('aria-invalid')).to.equal('true');
    expect((await listed())[0].url, 'nothing changed').to.equal(receiver.url);

    const edited = `${receiver.url}?edited=1`;
    await url.fill(edited);
    await form.getByLabel('Format', { exact: true }).selectOption('discord');
    await form.getByLabel('backup.failed', { exact: true }).check();
    await form.getByLabel('New secret (optional)', { exact: true }).fill('a-new-secret-of-many-chars');
    await screenshot(page, 'webhooks-edit-form');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: `Webhook ${name} saved.` }).waitFor();
    expect(await form.count(), 'the form closes').to.equal(0);
    const [saved] = await listed();
    expect(saved).to.deep.include({ name, url: edited, format: 'discord', teamId, hasSecret: true });
    expect([...saved.events].sort()).to.deep.equal(['backup.failed', 'server.crashed']);
    await page.getByRole('table', { name: 'Webhooks' }).getByRole('row').filter({ hasText: name }).getByRole('cell', { name: 'Yes', exact: true }).waitFor();
    await page.getByRole('button', { name: `Send test to ${name}`, exact: true }).click();
    const got = await waitFor(() => receiver.received.find((r) => r.path.includes('edited=1')), { what: 'a delivery to the new URL' });
    expect(got.headers['cairn-signature'], 'signed with the new secret').to.match(/^t=\d+,v1=[0-9a-f]{64}$/);

    await page.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
    await form.getByLabel('Name', { exact: true }).fill('renamed');
    await form.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(await form.count()).to.equal(0);
    expect((await listed())[0].name).to.equal(name);
  });

  it('Delete asks first, then the webhook is gone from the page and the API', async () => {
    await page.getByRole('button', { name: `Delete ${name}`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Delete the webhook ${name}?` });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('table', { name: 'Webhooks' }).getByRole('cell', { name: 'No webhooks yet.' }).waitFor();
    expect(await page.getByRole('table', { name: `Deliveries of ${name}` }).count()).to.equal(0);
    expect(await listed()).to.deep.equal([]);
  });

  it('a team administrator sees only their teams\' webhooks and cannot choose No team, which only global administrators may', async () => {
    const fleet = await admin.post<Webhook>('/webhooks', { name: 'fleet-pager', url: receiver.url, events: ['node.unreachable'] });
    expect(fleet.status, fleet.text).to.equal(201);
    const { userId } = await createReadyUser(t, admin, 'lena');
    const teamAdmin = (await admin.get<RolePage>('/roles')).body.items.find((r) => r.name === 'admin')!;
    const member = await admin.put(`/teams/${teamId}/members/${userId}`, { roleIds: [teamAdmin.id] });
    expect(member.status, member.text).to.equal(200);
    const lena = await signedInPage(t.baseUrl, pageErrors, { username: 'lena', password: 'second-password-2' }, { timeoutMs: 15_000 });
    try {
      await lena.page.goto(`${t.baseUrl}/webhooks`);
      await lena.page.getByRole('table', { name: 'Webhooks' }).getByRole('cell', { name: 'No webhooks yet.' }).waitFor();
      const form = lena.page.getByRole('form', { name: 'New webhook', exact: true });
      const team = form.getByLabel('Team', { exact: true });
      expect(await team.locator('option').allTextContents()).to.deep.equal(['Choose a team', 'Ops']);
      expect(await team.locator('option', { hasText: 'Choose a team' }).isDisabled()).to.equal(true);
      await form.getByLabel('Name', { exact: true }).fill('ops-chat');
      await form.getByLabel('URL', { exact: true }).fill(receiver.url);
      await team.selectOption({ label: 'Ops' });
      expect(await form.getByLabel('node.healthy', { exact: true }).count()).to.equal(0);
      await form.getByLabel('backup.failed', { exact: true }).check();
      await form.getByRole('button', { name: 'Create webhook' }).click();
      await lena.page.getByRole('table', { name: 'Webhooks' }).getByRole('cell', { name: 'ops-chat', exact: true }).waitFor();
    } finally {
      await lena.browser.close();
    }
    expect((await listed()).map((w) => [w.name, w.teamId])).to.deep.equal([['fleet-pager', undefined], ['ops-chat', teamId]]);
  });
});
