import { expect } from 'chai';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ServerDetail, Team } from '../support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeOperations } from '../support/fake-operations.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { openSection, screenshot, signedInPage } from './support-admin.js';

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });
const filesIn = (page: Page, dir: string) => page.getByRole('table', { name: `Files in ${dir}` });

/**
 * What a new operator tripped over (issue 41 item 16): Change password on the Security page, a
 * refusal's alerts outliving the values they were about, and the Files tab's address, new files,
 * upload progress, rename and move. A real Controller and a fake Node whose files are the Agent's own code.
 */
describe('web UI: Security page password, alerts that go when the fields change, Files tab', function () {
  this.timeout(90_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let ops: FakeOperations;
  let browser: Browser;
  let page: Page;
  let teamId: string;
  let serverId: string;
  const pageErrors: string[] = [];

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-a');
    ops = await FakeOperations.attach(agent);
    teamId = (await admin.post<Team>('/teams', { name: 'Blue' })).body.id;
    const created = await admin.post<ServerDetail>('/servers', { name: 'files', teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'files READY');
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors, adminCredentials, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await ops?.dispose();
    await browser?.close();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `failed-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('a form\'s alert about the whole form goes once a field changes (New user)', async () => {
    await openSection(page, 'Users', 'Users');
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill(adminCredentials.username);
    await form.getByLabel('Email').fill('someone@example.com');
    await form.getByLabel('Display name').fill('Someone');
    await form.getByLabel('Initial password').fill('first-password-1');
    await form.getByRole('button', { name: 'Create user' }).click();
    const refusal = form.getByRole('alert').filter({ hasText: 'A user with that username already exists.' });
    await refusal.waitFor();
    await form.getByLabel('Display name').fill('Someone else');
    await refusal.waitFor({ state: 'detached' });
    // The next refusal shows again.
    await form.getByRole('button', { name: 'Create user' }).click();
    await refusal.waitFor();
  });

  it('a field\'s own message goes once that field changes (New server)', async () => {
    await page.goto(`${t.baseUrl}/servers/new`);
    await heading(page, 'New server').waitFor();
    await page.getByLabel('Team').locator('option', { hasText: 'Blue' }).waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Create server' }).click();
    const message = page.getByRole('alert').filter({ hasText: 'Enter at least 1 character.' });
    await message.waitFor();
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Name').fill('lobby');
    await message.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).to.equal(null);
  });

  it('Files: the open folder is in the address, so reload and Back keep it', async () => {
    for (const dir of ['plugins', 'plugins/foo']) expect((await admin.post(`/servers/${serverId}/files/directories?path=${dir}`)).status).to.equal(201);
    await page.goto(`${t.baseUrl}/servers/${serverId}/files`);
    await page.getByRole('button', { name: 'plugins/' }).click();
    await filesIn(page, 'plugins').waitFor();
    await page.getByRole('button', { name: 'foo/' }).click();
    await filesIn(page, 'plugins/foo').waitFor();
    expect(new URL(page.url()).searchParams.get('path')).to.equal('plugins/foo');
    await page.reload();
    await filesIn(page, 'plugins/foo').waitFor();
    await page.goBack();
    await filesIn(page, 'plugins').waitFor();
    await page.goBack();
    await filesIn(page, 'the server root').waitFor();
  });

  it('Files: New file creates an empty file and opens it; a name in use is refused', async () => {
    await page.goto(`${t.baseUrl}/servers/${serverId}/files?path=plugins`);
    await filesIn(page, 'plugins').waitFor();
    await page.getByLabel('File name').fill('motd.txt');
    await page.getByRole('button', { name: 'New file' }).click();
    await filesIn(page, 'plugins').getByRole('cell', { name: 'motd.txt', exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'Contents of plugins/motd.txt' }).waitFor();
    expect((await stat(join(ops.dir, serverId, 'plugins', 'motd.txt'))).size).to.equal(0);
    await page.getByLabel('File name').fill('motd.txt');
    await page.getByRole('button', { name: 'New file' }).click();
    await page.getByRole('alert').filter({ hasText: 'motd.txt already exists in this folder.' }).waitFor();
  });

  it('Files: an upload shows how many bytes of the file are sent', async () => {
    await page.goto(`${t.baseUrl}/servers/${serverId}/files`);
    await filesIn(page, 'the server root').waitFor();
    // A slow link, so the upload lasts long enough to be seen under way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 });
    try {
      await page.getByLabel('Upload files').setInputFiles({ name: 'world.zip', mimeType: 'application/zip', buffer: Buffer.alloc(2 * 1024 * 1024, 7) });
      const bar = page.getByRole('progressbar', { name: 'Uploading world.zip' });
      const partly = await waitFor(async () => {
        const [value, max] = await Promise.all([bar.getAttribute('value', { timeout: 1000 }), bar.getAttribute('max', { timeout: 1000 })]);
        return Number(value) > 0 && Number(value) < Number(max) ? { value, max } : undefined;
      }, { timeoutMs: 10_000, what: 'the upload partly sent' });
      expect(Number(partly.max)).to.equal(2 * 1024 * 1024);
      await filesIn(page, 'the server root').getByRole('cell', { name: 'world.zip', exact: true }).waitFor();
      await bar.waitFor({ state: 'detached' });
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    }
    expect((await stat(join(ops.dir, serverId, 'world.zip'))).size).to.equal(2 * 1024 * 1024);
  });

  // Last: changing the password ends the test client's own session.
  it('Files: Rename keeps a file in its folder, Move puts it into another; the lists show it there', async () => {
    expect((await admin.put(`/servers/${serverId}/files/content?path=draft.txt`, undefined, { rawBody: Buffer.from('draft') })).status).to.equal(204);
    expect((await admin.post(`/servers/${serverId}/files/directories?path=archive`)).status).to.equal(201);
    await page.goto(`${t.baseUrl}/servers/${serverId}/files`);
    const root = filesIn(page, 'the server root');
    await root.getByRole('cell', { name: 'draft.txt', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Rename draft.txt' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename draft.txt' });
    await rename.getByLabel('New name').fill('notes.txt');
    await rename.getByRole('button', { name: 'Rename', exact: true }).click();
    await root.getByRole('cell', { name: 'notes.txt', exact: true }).waitFor();
    expect(await root.getByRole('cell', { name: 'draft.txt', exact: true }).count()).to.equal(0);

    await page.getByRole('button', { name: 'Move notes.txt' }).click();
    const moveTo = page.getByRole('dialog', { name: 'Move notes.txt' });
    await moveTo.getByLabel('Move to (path from the server root)').fill('archive/notes.txt');
    await moveTo.getByRole('button', { name: 'Move', exact: true }).click();
    await root.getByRole('cell', { name: 'notes.txt', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'archive/' }).click();
    await filesIn(page, 'archive').getByRole('cell', { name: 'notes.txt', exact: true }).waitFor();
    expect(await readFile(join(ops.dir, serverId, 'archive', 'notes.txt'), 'utf8')).to.equal('draft');
    await screenshot(page, 'files-moved');
  });

  it('the Security page has Change password, and comes back to it afterwards', async () => {
    await openSection(page, 'Security', 'Security');
    await page.getByRole('link', { name: 'Change password', exact: true }).click();
    await heading(page, 'Change password').waitFor();
    await page.getByLabel('Current password').fill(adminCredentials.password);
    await page.getByLabel('New password', { exact: true }).fill('a-new-password-2');
    await page.getByLabel('Repeat new password').fill('a-new-password-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await heading(page, 'Security').waitFor();
    const login = await t.api.post('/auth/login', { username: adminCredentials.username, password: 'a-new-password-2' });
    expect(login.status, login.text).to.equal(200);
  });
});
