import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { localAgentDir } from '../../src/controller/program/local-agent.js';
import type { Team } from '../support/api-types.js';
import { adminCredentials, networkInput, startTestController, type TestController } from '../support/controller.js';
import { killGames } from '../support/fleet.js';
import { gamePortsArgs, privateGamePorts } from '../support/game-ports.js';
import { checkPrerequisites, fact, launchBrowser, shoot, type TestBrowser, waitForServerPage } from './browser.js';

/** The laptop of issue 41's new operator. */
const laptop = { width: 1366, height: 850 };
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/**
 * Issue 41's first hour, walked in one go as the new operator did: `npm start`'s Controller with its
 * local Agent on a fresh data dir, then the browser at 1366×850. Each step checks by what the page
 * shows that what tripped them up is gone; the items' own tests go into the details.
 */
describe('web UI: a new operator\'s first hour, walked on a fresh data dir', function () {
  this.timeout(180_000);
  let t: TestController;
  let b: TestBrowser;
  let page: Page;

  before(async () => {
    await checkPrerequisites();
    t = await startTestController({ extraArgs: ['--local-agent', ...gamePortsArgs(await privateGamePorts())] });
    b = await launchBrowser(t.baseUrl, laptop);
    page = b.page;
    page.setDefaultTimeout(30_000);
  });
  afterEach(async function () {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- before() may have failed before opening the page
    if (this.currentTest?.state === 'failed' && page) await shoot(page, `first-hour-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await b?.close();
    if (t) {
      await t.stop();
      await killGames(localAgentDir(t.dataDir));
      await t.dispose();
    }
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  it('sets up with the code from the data dir and lands on the servers page', async () => {
    await page.goto('/');
    await heading(page, 'Set up Cairn').waitFor();
    await page.getByLabel('Setup code').fill((await readFile(join(t.dataDir, 'setup-code'), 'utf8')).trim());
    await page.getByLabel('Username').fill(adminCredentials.username);
    await page.getByLabel('Email').fill(adminCredentials.email);
    await page.getByLabel('Display name').fill(adminCredentials.displayName);
    await page.getByLabel('Password').fill(adminCredentials.password);
    await page.getByLabel('Network name').fill(networkInput.name);
    await page.getByLabel('Network address').fill(networkInput.address);
    await page.getByLabel('Network port').fill(String(networkInput.port));
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await heading(page, 'Servers').waitFor();
  });

  it('makes a team on the Teams page, which lists the teams people use', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams', exact: true }).click();
    await heading(page, 'Teams').waitFor();
    const form = page.getByRole('form', { name: 'New team' });
    await form.getByLabel('Name').fill('Survival');
    await form.getByRole('button', { name: 'Create team' }).click();
    const table = page.getByRole('table', { name: 'Teams', exact: true });
    await table.getByRole('row').filter({ hasText: 'Survival' }).waitFor();
    const teams = await page.evaluate(async () => (await (await fetch('/api/v1/teams?limit=100')).json()) as { items: Team[] });
    // What the page lists is exactly the teams people use: the network's own team (made with its proxy) is the API's alone.
    const shown = (await table.locator('tbody tr').allTextContents()).map((row) => row.trim());
    expect(shown.map((row) => teams.items.find((team) => row.startsWith(team.name))?.name)).to.deep.equal(teams.items.filter((team) => !team.internal).map((team) => team.name));
  });

  it('creates a simcraft server: its page opens on the console, says where players connect and what its states mean', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Servers', exact: true }).click();
    await page.getByRole('link', { name: 'New server' }).click();
    await heading(page, 'New server').waitFor();
    await page.getByLabel('Name').fill('lobby');
    await page.getByLabel('Team').selectOption({ label: 'Survival' });
    await page.getByLabel('Template').selectOption('simcraft');
    await page.getByLabel('CPU (millicores)').fill('500');
    await page.getByLabel('Memory (MiB)').fill('256');
    await page.getByRole('button', { name: 'Create server' }).click();
    await waitForServerPage(page, 'lobby');
    await fact(page, 'Phase').filter({ has: page.getByText('READY', { exact: true }) }).filter({ hasText: 'installed, can start' }).waitFor();
    // The Node's address is known once its Agent has reported: the page shows it as soon as it is.
    await fact(page, 'Players connect to').filter({ hasText: /127\.0\.0\.1:\d+/ }).waitFor();
    // The console comes first, and on the first screen of the laptop.
    for (const what of [page.getByRole('log'), page.getByLabel('Command')]) {
      const box = await what.boundingBox();
      expect(box, 'laid out').to.not.equal(null);
      expect(box!.y + box!.height, 'within the first screen').to.be.at.most(laptop.height);
    }
  });

  it('starts it without an EULA question (simcraft needs none), and the console answers', async () => {
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await fact(page, 'Runtime state').filter({ has: page.getByText('RUNNING', { exact: true }) }).filter({ hasText: 'the game is running' }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('dialog').count(), 'no dialog asked').to.equal(0);
    await page.getByLabel('Command').fill('say hello from the first hour');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log').getByText('hello from the first hour').first().waitFor();
  });

  it('the Nodes page says the Controller listens on loopback and how to install cairn-agent elsewhere', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Nodes', exact: true }).click();
    await heading(page, 'Nodes').waitFor();
    const form = page.getByRole('form', { name: 'New Node' });
    await form.getByLabel('Name').fill('edge-1');
    await form.getByRole('button', { name: 'Create Node' }).click();
    const shown = page.getByRole('region', { name: 'Enroll the Agent of edge-1' });
    expect(await shown.getByRole('note', { name: 'Reaching the Controller' }).textContent()).to.include('--host 0.0.0.0');
    expect(await shown.getByLabel('Install cairn-agent on another host').inputValue()).to.include('npm link');
  });

  it('the Security page offers Change password', async () => {
    await page.goto('/security');
    await heading(page, 'Security').waitFor();
    await page.getByRole('link', { name: 'Change password', exact: true }).waitFor();
  });
});
