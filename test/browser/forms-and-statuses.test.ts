import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { BackupDestination, ServerDetail, ServerPage, Team } from '../support/api-types.js';
import { FakeBackups } from '../support/backups-rig.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { desktop, phone, screenshot, signedInPage } from './support-admin.js';

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/**
 * What people read in the New server form, the backups of a server, the audit log and the header,
 * against a real Controller and a fake Node: problems say what to do, status lines follow the live
 * state, targets are named rather than shown as ids.
 */
describe('web UI: forms that say what to do, live status lines, names instead of ids', function () {
  this.timeout(90_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let fake: FakeBackups;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  const pageErrors: string[] = [];

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-a');
    fake = new FakeBackups(agent);
    // The proxy makes the team `network` for itself: a team of Cairn's, not one to put game servers in.
    expect((await admin.patch('/network', { port: 25_577 })).status).to.equal(200);
    const proxy = await admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } });
    expect(proxy.status, proxy.text).to.equal(201);
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors, adminCredentials, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await browser?.close();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `failed-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('New server: the network\'s own team is not offered; without a team it says "Choose a team." and links to the Teams page', async () => {
    await page.goto(`${t.baseUrl}/servers/new`);
    await heading(page, 'New server').waitFor();
    const team = page.getByLabel('Team');
    await team.locator('option', { hasText: 'No team' }).waitFor({ state: 'attached' });
    expect(await team.locator('option').allTextContents()).to.deep.equal(['No team']);
    await page.getByLabel('Name').fill('lobby');
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.getByRole('alert').filter({ hasText: 'Choose a team.' }).waitFor();
    expect(await team.getAttribute('aria-invalid')).to.equal('true');
    const servers = (await admin.get<ServerPage>('/servers')).body.items;
    expect(servers.map((s) => s.kind), 'nothing was sent').to.deep.equal(['PROXY']);
    await page.getByRole('link', { name: 'create one on the Teams page' }).click();
    await heading(page, 'Teams').waitFor();
  });

  it('New server: templates are named for what they are; the API\'s problem about a field says what to do, in words', async () => {
    expect((await admin.post<Team>('/teams', { name: 'Blue' })).status).to.equal(201);
    await page.goto(`${t.baseUrl}/servers/new`);
    const team = page.getByLabel('Team');
    await team.locator('option', { hasText: 'Blue' }).waitFor({ state: 'attached' });
    expect(await team.locator('option').allTextContents()).to.deep.equal(['Blue']);
    const templates = await page.getByLabel('Template').locator('option').allTextContents();
    expect(templates).to.include.members(['Simcraft (simulated Minecraft server)', 'Paper', 'Minecraft (vanilla)']);
    expect(templates.join(' ')).not.to.match(/\((paper|velocity)\)/);
    await page.getByLabel('Template').selectOption({ label: 'Simcraft (simulated Minecraft server)' });
    await page.getByText('behaves like a Paper server').waitFor();

    // An empty name is refused by the API's validator; the words under the field are its advice.
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter at least 1 character.' }).waitFor();
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).to.equal('true');
    expect(await page.locator('main').textContent()).not.to.match(/must NOT|must match/);

    await page.getByLabel('Name').fill('lobby');
    await page.getByLabel('CPU (millicores)').fill('200');
    await page.getByLabel('Memory (MiB)').fill('128');
    await page.getByRole('button', { name: 'Create server' }).click();
    await heading(page, 'lobby').waitFor();
  });

  it('Backups: the status lines follow the backup and the restore to their end; rows show seconds, trigger and size', async () => {
    const team = await admin.post<Team>('/teams', { name: 'Ops' });
    const created = await admin.post<ServerDetail>('/servers', { name: 'vault', teamId: team.body.id, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'vault READY', 10_000);
    const nodeDir = (await admin.post<BackupDestination>('/backup-destinations', { name: 'local-disk', kind: 'NODE_DIRECTORY', path: '/var/backups/cairn' })).body;
    let release!: () => void;
    fake.gate = new Promise((resolve) => (release = resolve));
    await page.goto(`${t.baseUrl}/servers/${serverId}/backups`);
    const form = page.getByRole('form', { name: 'Back up now' });
    await form.getByLabel('Destination').locator('option', { hasText: 'local-disk' }).waitFor({ state: 'attached' });
    await form.getByLabel('Destination').selectOption(nodeDir.id);
    await form.getByRole('button', { name: 'Back up now' }).click();
    await form.getByRole('status').filter({ hasText: /PENDING|RUNNING/ }).waitFor();
    release();
    await form.getByRole('status').filter({ hasText: 'Backup done: SUCCEEDED.' }).waitFor();

    await page.getByRole('button', { name: /^Restore the backup of/ }).click();
    await page.getByRole('dialog', { name: 'Restore vault?' }).getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('status').filter({ hasText: 'vault is restored: its phase is READY.' }).waitFor();
    expect(await page.getByText('its phase is RESTORING').count()).to.equal(0);

    const table = page.getByRole('table', { name: 'Backups of vault' });
    const manual = table.getByRole('row').filter({ hasText: 'MANUAL' });
    const preRestore = table.getByRole('row').filter({ hasText: 'PRE_RESTORE' });
    await preRestore.filter({ hasText: 'SUCCEEDED' }).waitFor();
    for (const row of [manual, preRestore]) {
      expect(await row.getByRole('cell').first().textContent()).to.match(/\d:\d\d:\d\d/);
    }
    // On a phone too: the trigger and size are what tell the rows apart.
    await page.setViewportSize(phone);
    expect(await preRestore.getByText('PRE_RESTORE').isVisible()).to.equal(true);
    expect(await preRestore.getByText('1000 B').isVisible()).to.equal(true);
    await screenshot(page, 'backups-live-status-phone');
    await page.setViewportSize(desktop);
  });

  it('Audit log: targets are named and linked, on one line; ids in the details are named too', async () => {
    await page.goto(`${t.baseUrl}/audit?action=server.create`);
    await heading(page, 'Audit log').waitFor();
    const table = page.getByRole('table', { name: 'Audit events' });
    const link = table.getByRole('link', { name: 'vault', exact: true });
    await link.waitFor();
    expect(await link.getAttribute('href')).to.equal(`/servers/${serverId}`);
    const target = table.locator('.audit-target').filter({ has: page.getByRole('link', { name: 'vault', exact: true }) });
    expect(await target.getAttribute('title')).to.equal(`server ${serverId}`);
    expect(await table.textContent()).not.to.include(serverId);
    await page.goto(`${t.baseUrl}/audit?action=backup.create`);
    const serverDetail = table.getByRole('definition').filter({ hasText: /^vault$/ }).first();
    await serverDetail.waitFor();
    expect(await serverDetail.getAttribute('title')).to.equal(serverId);
    await page.goto(`${t.baseUrl}/audit?action=team.create`);
    await table.getByRole('link', { name: 'Blue', exact: true }).waitFor();
    // Every event, with ids of all kinds: each target takes one line.
    await page.goto(`${t.baseUrl}/audit`);
    await table.getByRole('link', { name: 'vault', exact: true }).first().waitFor();
    const targets = await table.locator('.audit-target').all();
    const heights = await Promise.all(targets.map(async (target) => (await target.boundingBox())?.height ?? 0));
    const lineHeight = Math.min(...heights);
    expect(heights.every((h) => h < lineHeight * 1.5), `one line each: ${heights.join(', ')}`).to.equal(true);
    await screenshot(page, 'audit-targets');
  });

  it('the header\'s user name opens the account page, where the password is changed', async () => {
    await page.goto(`${t.baseUrl}/servers`);
    await page.getByRole('link', { name: adminCredentials.displayName, exact: true }).click();
    await heading(page, 'Change password').waitFor();
    await page.getByText(`Signed in as ${adminCredentials.displayName} (${adminCredentials.username}).`).waitFor();
    await page.getByLabel('Current password').fill(adminCredentials.password);
    await page.getByLabel('New password', { exact: true }).fill('a-new-password-2');
    await page.getByLabel('Repeat new password').fill('a-new-password-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await heading(page, 'Servers').waitFor();
    const login = await t.api.post('/auth/login', { username: adminCredentials.username, password: 'a-new-password-2' });
    expect(login.status, login.text).to.equal(200);
  });
});
