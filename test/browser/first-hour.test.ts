import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import type { PropertiesView, ServerDetail, TeamPage } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import { buildWorld, type World } from '../support/fixture-world.js';
import { openSection, signedInPage, signIn } from './support-admin.js';

/**
 * What a new operator tripped over in the first hour (issue 41, item 16), in a real browser: a
 * locked-out user unlocked from the Users page, choices for server.properties values, the
 * network's own team kept out of lists and pickers, and recovery codes to download.
 */
describe('web UI: first-hour fixes', function () {
  this.timeout(60_000);
  let w: World;
  let browser: Browser;
  let page: Page;
  let networkTeamId: string;
  const pageErrors: string[] = [];

  before(async () => {
    w = await buildWorld();
    const proxy = await w.admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources: { cpuMillis: 100, memoryBytes: 64 * 1024 * 1024 } });
    expect(proxy.status, proxy.text).to.equal(201);
    networkTeamId = proxy.body.teamId;
    ({ browser, page } = await signedInPage(w.t.baseUrl, pageErrors));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await w?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('Users: Unlock lets a user locked out by failed sign-ins sign in again at once', async () => {
    await createReadyUser(w.t, w.admin, 'lena');
    const login = (password: string) => w.t.api.post('/auth/login', { username: 'lena', password });
    for (let i = 0; i < 5; i++) expect((await login(`wrong-${i}`)).status).to.equal(401);
    expect((await login('second-password-2')).status).to.equal(429);
    await openSection(page, 'Users', 'Users');
    await page.getByRole('button', { name: 'Unlock lena' }).click();
    await page.getByRole('status').filter({ hasText: 'lena is unlocked' }).waitFor();
    expect((await login('second-password-2')).status).to.equal(200);
  });

  it('Properties: booleans and enums are chosen from a list, and the choice is saved', async () => {
    await page.goto(`${w.t.baseUrl}/servers/${w.serverId}/properties`);
    const pvp = page.getByRole('combobox', { name: 'Value of pvp' });
    await pvp.waitFor();
    expect(await pvp.locator('option').allTextContents()).to.deep.equal(['true', 'false']);
    const difficulty = page.getByRole('combobox', { name: 'Value of difficulty' });
    expect(await difficulty.locator('option').allTextContents()).to.deep.equal(['peaceful', 'easy', 'normal', 'hard']);
    expect(await page.getByRole('textbox', { name: 'Value of motd' }).count(), 'free text stays a text field').to.equal(1);
    await pvp.selectOption('false');
    await difficulty.selectOption('hard');
    await page.getByRole('button', { name: 'Save properties (2 changed)' }).click();
    await page.getByRole('status').filter({ hasText: 'applies at the next start' }).waitFor();
    expect((await w.admin.get<PropertiesView>(`/servers/${w.serverId}/properties`)).body.properties).to.include({ pvp: 'false', difficulty: 'hard' });
  });

  it('the network\'s own team is not on the Teams page nor offered by the token and single sign-on pickers', async () => {
    const teams = (await w.admin.get<TeamPage>('/teams')).body.items;
    expect(teams.find((t) => t.id === networkTeamId)).to.include({ name: 'network', internal: true });
    await openSection(page, 'Teams', 'Teams');
    const table = page.getByRole('table', { name: 'Teams' });
    await table.getByRole('link', { name: 'World' }).waitFor();
    expect(await table.getByRole('link', { name: 'network' }).count()).to.equal(0);

    await openSection(page, 'API tokens', 'API tokens');
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByRole('checkbox', { name: 'Limit what this token can do' }).check();
    const tokenTeams = form.getByRole('group', { name: 'Token teams' });
    await tokenTeams.getByRole('checkbox', { name: 'World' }).waitFor();
    expect(await tokenTeams.getByRole('checkbox', { name: 'network' }).count()).to.equal(0);

    await openSection(page, 'Single sign-on', 'Single sign-on');
    await page.getByRole('button', { name: 'Add a team mapping' }).click();
    const teamSelect = page.getByRole('group', { name: 'Team mappings' }).getByRole('combobox', { name: 'Team' });
    await teamSelect.locator('option', { hasText: 'World' }).waitFor({ state: 'attached' });
    expect(await teamSelect.locator('option').allTextContents()).to.not.include('network');
  });

  it('Security: the recovery codes shown once download as a text file', async () => {
    await createReadyUser(w.t, w.admin, 'nora');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, w.t.baseUrl, 'nora', 'second-password-2');
    await openSection(page, 'Security', 'Security');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const secret = await page.getByLabel('Secret').inputValue();
    await page.getByLabel('Current password').fill('second-password-2');
    await page.getByLabel('Code from the app').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: w.t.clock.now().getTime() }));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    const shown = page.getByRole('region', { name: 'Your recovery codes' });
    const codes = (await shown.getByLabel('Recovery codes').inputValue()).split('\n');
    expect(codes).to.have.length(10);
    for (const code of codes) expect(code).to.match(/^[2-9a-hjkmnp-z]{4}(-[2-9a-hjkmnp-z]{4}){4}$/);
    const link = shown.getByRole('link', { name: 'Download codes' });
    expect(await link.getAttribute('download')).to.equal('cairn-recovery-codes.txt');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const text = await readFile((await download.path()), 'utf8');
    expect(text.split('\n')).to.include.members(codes);
    expect(text).to.include('Cairn recovery codes for nora');
  });
});
