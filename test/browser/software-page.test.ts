import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import type { ServerDetail, Team, TemplateVersionPage } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeUpstream, type FakePaperVersion } from '../support/fake-upstream.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { desktop, expectNoSidewaysScroll, phone, screenshot, signedInPage, signIn } from './support-admin.js';
import { fact } from './browser.js';

const small = { cpuMillis: 100, memoryBytes: GiB / 16 };

/** A `<dt>` term's `<dd>` inside `scope`. */

/** The option labels of a select, once they equal `expected` (the versions arrive after the page). */
const optionsOf = (select: Locator, expected: string[]) =>
  waitFor(async () => {
    const labels = await select.locator('option').allTextContents();
    return JSON.stringify(labels) === JSON.stringify(expected) ? labels : undefined;
  }, { what: `options ${expected.join(', ')}` });

/** The page on a desktop and a phone; the console's terminal refits to the narrower screen a moment after the resize. */
async function capture(page: Page, name: string): Promise<void> {
  await screenshot(page, `software-${name}`);
  await page.setViewportSize(phone);
  await waitFor(() => expectNoSidewaysScroll(page).then(() => true, () => false), { timeoutMs: 3_000, what: 'the page to fit a phone' }).catch(() => undefined);
  await expectNoSidewaysScroll(page);
  await screenshot(page, `software-${name}-phone`);
  await page.setViewportSize(desktop);
}

const paperVersions = (extraBuild?: number): FakePaperVersion[] => [
  { id: '1.21.10', java: 21, builds: [...(extraBuild ? [{ id: extraBuild, channel: 'STABLE' as const, bytes: randomBytes(64) }] : []), { id: 11, channel: 'STABLE', bytes: randomBytes(64) }] },
  { id: '1.21.4', java: 21, builds: [{ id: 232, channel: 'STABLE', bytes: randomBytes(64) }] },
  { id: '1.16.5', java: 8, builds: [{ id: 794, channel: 'STABLE', bytes: randomBytes(64) }] },
];

/**
 * The Version select of the New server form, the server page's Software card, its Update form's
 * refusals and Sync versions, in a real browser against a Controller with a fake Agent and a local
 * PaperMC/Mojang upstream (the Java needs come from there).
 */
describe('web UI: versions with their Java need, the Software card and its refusals', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let teamId: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.paper.set('paper', paperVersions());
    upstream.mojang = [{ id: '1.21.4', type: 'release', java: 21, bytes: randomBytes(32) }];
    t = await startTestController({ extraArgs: upstream.controllerArgs });
    ({ admin } = await setupAdmin(t));
    expect((await admin.post('/software/sync')).status).to.equal(200);
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'edge');
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await browser?.close();
    await t?.dispose();
    await upstream?.close();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('the New server form lists the template\'s versions newest first with their Java need, the newest chosen, and creates the server', async () => {
    await page.getByRole('link', { name: 'New server' }).click();
    await page.getByRole('heading', { level: 1, name: 'New server' }).waitFor();
    await page.getByLabel('Template').selectOption('paper');
    const version = page.getByLabel('Version', { exact: true });
    await optionsOf(version, ['1.21.10 (Java 21)', '1.21.4 (Java 21)', '1.16.5 (Java 8)']);
    expect(await version.inputValue()).to.equal('1.21.10');
    await page.getByLabel('Template').selectOption('vanilla');
    await optionsOf(version, ['1.21.4 (Java 21)']);
    await page.getByLabel('Template').selectOption('paper');
    await optionsOf(version, ['1.21.10 (Java 21)', '1.21.4 (Java 21)', '1.16.5 (Java 8)']);
    await version.selectOption('1.21.4');
    await page.getByLabel('Name').fill('paper-hub');
    await page.getByLabel('CPU (millicores)').fill('100');
    await page.getByLabel('Memory (MiB)').fill('64');
    await capture(page, 'new-server-versions');
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.getByRole('heading', { level: 1, name: 'paper-hub' }).waitFor();
    const created = (await admin.get<{ items: ServerDetail[] }>('/servers')).body.items.find((s) => s.name === 'paper-hub');
    expect(created?.software).to.deep.equal({ template: 'paper', version: '1.21.4', build: '232' });
  });

  it('the Software card shows template, version and build, and that a newer version is available', async () => {
    await page.getByRole('tab', { name: 'Software' }).click();
    const card = page.getByRole('region', { name: 'Software' });
    await fact(card, 'Template').filter({ hasText: 'paper' }).waitFor();
    expect(await fact(card, 'Version').textContent()).to.equal('1.21.4');
    expect(await fact(card, 'Build').textContent()).to.equal('232');
    await card.getByRole('note').filter({ hasText: 'Version 1.21.10 is available.' }).waitFor();
    const form = card.getByRole('form', { name: 'Update software' });
    await optionsOf(form.getByLabel('Target version'), ['1.21.10 (Java 21)', '1.21.4 (Java 21) (current)', '1.16.5 (Java 8)']);
    await capture(page, 'card');
  });

  it('refuses an older version without Allow downgrade, and the software the server runs already, naming the field', async () => {
    const card = page.getByRole('region', { name: 'Software' });
    const form = card.getByRole('form', { name: 'Update software' });
    await fact(page, 'Phase').getByText('READY', { exact: true }).waitFor();
    await form.getByLabel('Target version').selectOption('1.16.5');
    await form.getByRole('button', { name: 'Update' }).click();
    await form.getByRole('alert').filter({ hasText: 'downgrade' }).waitFor();
    await capture(page, 'downgrade-refused');
    await form.getByLabel('Target version').selectOption('1.21.4');
    await form.getByRole('button', { name: 'Update' }).click();
    const target = form.getByLabel('Target version');
    await waitFor(async () => (await target.getAttribute('aria-invalid')) === 'true', { what: 'Target version marked invalid' });
    const described = (await target.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${described.split(' ').pop()}"]`).getAttribute('role')).to.equal('alert');
    const server = (await admin.get<{ items: ServerDetail[] }>('/servers')).body.items.find((s) => s.name === 'paper-hub');
    expect(server).to.deep.include({ phase: 'READY' });
    expect(server?.software.version).to.equal('1.21.4');
  });

  it('Sync versions shows each source\'s result; a build listed since then shows as available', async () => {
    const res = await admin.post<ServerDetail>('/servers', { name: 'paper-new', teamId, software: { template: 'paper', version: '1.21.10' }, resources: small, nodeId: agent.nodeId });
    expect(res.status, res.text).to.equal(201);
    await page.goto(`${t.baseUrl}/servers/${res.body.id}`);
    await page.getByRole('tab', { name: 'Software' }).click();
    const card = page.getByRole('region', { name: 'Software' });
    await fact(card, 'Build').filter({ hasText: '11' }).waitFor();
    await card.getByRole('form', { name: 'Update software' }).getByLabel('Target version').locator('option').first().waitFor({ state: 'attached' });
    expect(await card.getByRole('note').count(), 'nothing newer yet').to.equal(0);
    upstream.paper.set('paper', paperVersions(13));
    await card.getByRole('button', { name: 'Sync versions' }).click();
    const results = card.getByRole('list', { name: 'Sync results' });
    await results.getByRole('listitem').filter({ hasText: 'papermc:paper' }).filter({ hasText: '3 versions' }).waitFor();
    await results.getByRole('listitem').filter({ hasText: 'mojang' }).filter({ hasText: '1 versions' }).waitFor();
    await card.getByRole('note').filter({ hasText: 'Build 13 of 1.21.10 is available.' }).waitFor();
    await capture(page, 'synced');
  });

  it('someone who is not a global administrator is offered no Sync versions', async () => {
    await createReadyUser(t, admin, 'player');
    const other = await browser.newPage({ viewport: desktop });
    try {
      await signIn(other, t.baseUrl, 'player', 'second-password-2');
      await other.goto(`${t.baseUrl}/servers/new`);
      await other.getByRole('heading', { level: 1, name: 'New server' }).waitFor();
      await other.getByRole('button', { name: 'Create server' }).waitFor();
      expect(await other.getByRole('button', { name: 'Sync versions' }).count()).to.equal(0);
      expect(await page.getByRole('button', { name: 'Sync versions' }).count(), 'the administrator\'s page still has it').to.equal(1);
    } finally {
      await other.close();
    }
  });
});

/**
 * The UPDATE workflow through the Software card with a real Agent (it takes the PRE_UPDATE backup
 * and runs simcraft): the live step, `Updated to …`, and a failed start's UPDATE_FAILED message.
 */
describe('web UI: updating a server\'s software from its page (real Agent)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  const pageErrors: string[] = [];

  before(async () => {
    f = await startFleet();
    const res = await f.admin.post<ServerDetail>('/servers', { name: 'hub', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.1' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(res.status, res.text).to.equal(201);
    serverId = res.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors));
    await page.goto(`${f.t.baseUrl}/servers/${serverId}`);
    await page.getByRole('tab', { name: 'Software' }).click();
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('updates simcraft 1.21.1 to 1.21.4: the workflow\'s step shows while it runs, then Updated to 1.21.4', async () => {
    const newest = (await f.admin.get<TemplateVersionPage>('/templates/simcraft/versions')).body.items[0].version;
    const card = page.getByRole('region', { name: 'Software' });
    expect(await fact(card, 'Version').textContent()).to.equal('1.21.1');
    await card.getByRole('note').filter({ hasText: `Version ${newest} is available.` }).waitFor();
    const form = card.getByRole('form', { name: 'Update software' });
    await form.getByLabel('Target version').selectOption('1.21.4');
    await form.getByRole('button', { name: 'Update' }).click();
    await card.getByRole('progressbar', { name: 'Update in progress' }).waitFor();
    await card.getByRole('status').filter({ hasText: 'Updating: ' }).waitFor();
    expect(await form.getByRole('button', { name: 'Update' }).isDisabled(), 'no second update while one runs').to.equal(true);
    await form.getByText('An update is running.').waitFor();
    await capture(page, 'updating');
    await card.getByRole('status').filter({ hasText: 'Updated to 1.21.4' }).waitFor({ timeout: 90_000 });
    await fact(card, 'Version').filter({ hasText: /^1\.21\.4$/ }).waitFor();
    const server = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body;
    expect(server).to.deep.include({ phase: 'READY' });
    expect(server.software.version).to.equal('1.21.4');
    expect(await form.getByRole('button', { name: 'Update' }).isEnabled()).to.equal(true);
    await capture(page, 'updated');
  });

  it('1.21.4-crash is an older version: refused until Allow downgrade, then its failed start shows the UPDATE_FAILED message and the server stays on 1.21.4', async () => {
    const card = page.getByRole('region', { name: 'Software' });
    const form = card.getByRole('form', { name: 'Update software' });
    await form.getByLabel('Target version').selectOption('1.21.4-crash');
    await form.getByRole('button', { name: 'Update' }).click();
    await form.getByRole('alert').filter({ hasText: 'downgrade' }).waitFor();
    await form.getByLabel('Allow downgrade').check();
    await form.getByRole('button', { name: 'Update' }).click();
    await card.getByRole('progressbar', { name: 'Update in progress' }).waitFor();
    const failed = card.getByRole('alert').filter({ hasText: 'The update failed:' });
    await failed.waitFor({ timeout: 90_000 });
    const server = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body;
    const condition = server.conditions.find((c) => c.reason === 'UPDATE_FAILED');
    expect(condition, 'UPDATE_FAILED condition').to.not.equal(undefined);
    expect(await failed.textContent()).to.equal(`The update failed: ${condition?.message}`);
    expect(server.software.version).to.equal('1.21.4');
    expect(await fact(card, 'Version').textContent()).to.equal('1.21.4');
    expect(await card.getByText('Updated to').count(), 'the earlier success is not shown as this one\'s').to.equal(0);
    await capture(page, 'update-failed');
  });
});
