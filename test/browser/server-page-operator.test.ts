import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { adminCredentials, networkInput } from '../support/controller.js';
import type { Node, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { screenshot, signedInPage } from './support-admin.js';
import { fact } from './browser.js';

/** The laptop of issue 41's new operator: the server page's first screen must hold the console. */
const laptop = { width: 1366, height: 850 };

/** The value shown next to a term of the server page's facts. */

interface Box { x: number; y: number; width: number; height: number }

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  expect(box, 'the element is laid out').to.not.equal(null);
  return box!;
}

const within = (box: Box, size: { width: number; height: number }) => box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width;

/** What the person sees at (x, y): whether it belongs to the element `selector` finds (nothing drawn over it there), and what it is. */
const seenAt = (page: Page, selector: string, x: number, y: number) =>
  page.evaluate<string>(`(() => {
    const hit = document.elementFromPoint(${x}, ${y});
    const own = document.querySelector(${JSON.stringify(selector)});
    return own && hit && own.contains(hit) ? 'own' : hit ? hit.tagName + '.' + hit.className : 'nothing';
  })()`);

/**
 * What issue 41's new operator tripped over on the server page, against a Controller with a real
 * Agent (simcraft): the console on the first screen, the address players use, plain words for the
 * API's states, and a crash that an automatic restart healed.
 */
describe('web UI: the server page for a new operator', function () {
  this.timeout(120_000);
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  const pageErrors: string[] = [];

  const create = async (name: string, extra: object = {}) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 }, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };

  before(async () => {
    f = await startFleet();
    serverId = await create('survival');
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING', 30_000);
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors, adminCredentials, { viewport: laptop, timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('at 1366×850 the console comes first: its log and Command field in view unscrolled, nothing over its last line or its status line', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}`);
    const log = page.getByRole('log');
    await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    await log.filter({ hasText: 'Done (' }).waitFor();
    await screenshot(page, 'operator-console-1366x850');
    expect(await page.evaluate<number>('window.scrollY'), 'the page is not scrolled').to.equal(0);
    const logBox = await boxOf(log);
    expect(within(logBox, laptop), `the log ${JSON.stringify(logBox)} within the first screen`).to.equal(true);
    expect(within(await boxOf(page.getByLabel('Command')), laptop), 'the Command field within the first screen').to.equal(true);
    expect(within(await boxOf(page.getByRole('button', { name: 'Send' })), laptop), 'Send within the first screen').to.equal(true);

    expect(await seenAt(page, '[role="log"]', logBox.x + logBox.width / 2, logBox.y + logBox.height - 3), 'the log\'s last line is not covered').to.equal('own');
    const statusBox = await boxOf(page.locator('.console-status').filter({ hasText: 'Connected' }));
    expect(await seenAt(page, '.console-status', statusBox.x + 5, statusBox.y + statusBox.height / 2), 'the console\'s status line is not covered').to.equal('own');
    const form = await boxOf(page.locator('form.command-form'));
    expect(form.y, 'the command bar starts below the log').to.be.at.least(logBox.y + logBox.height);

    // Scrolled down to the usage charts and back, the command bar never lies over the log.
    await page.mouse.wheel(0, 400);
    await page.mouse.wheel(0, -200);
    const scrolledLog = await boxOf(log);
    const bottom = Math.min(scrolledLog.y + scrolledLog.height - 3, laptop.height - 3);
    expect(await seenAt(page, '[role="log"]', scrolledLog.x + scrolledLog.width / 2, bottom), 'the log\'s lowest visible line is not covered after scrolling').to.equal('own');
  });

  it('the software and its update are on a tab of their own, after the contract\'s tabs but before Settings', async () => {
    const tabs = await page.getByRole('tablist', { name: 'Server sections' }).getByRole('tab').allTextContents();
    expect(tabs).to.deep.equal(['Console', 'Files', 'Properties', 'Plugins', 'Backups', 'Schedules', 'Software', 'Settings']);
    expect(await page.getByRole('region', { name: 'Software' }).count(), 'no Software card on the console').to.equal(0);
    await page.getByRole('tab', { name: 'Software' }).click();
    const card = page.getByRole('region', { name: 'Software' });
    await card.getByRole('form', { name: 'Update software' }).waitFor();
    expect(page.url()).to.match(/\/software$/);
  });

  it('shows where players connect, host:port of the Node, with a Copy address button that copies it', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}`);
    const server = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body;
    const node = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body;
    expect(node.reachAddress, 'the Node\'s address is known').to.be.a('string').and.not.equal('');
    const expected = `${node.reachAddress}:${server.gamePort}`;
    const where = fact(page, 'Players connect to');
    await where.getByText(expected, { exact: true }).waitFor();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.t.baseUrl });
    await where.getByRole('button', { name: 'Copy address' }).click();
    await where.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(expected);
  });

  it('a network member shows the network\'s address and port instead of its own', async () => {
    const member = await create('member', { inNetwork: true });
    await page.goto(`${f.t.baseUrl}/servers/${member}`);
    await fact(page, 'Players connect to').getByText(`${networkInput.address}:${networkInput.port}`, { exact: true }).waitFor();
  });

  it('states keep the API\'s values, with plain words beside them, the API field as the term\'s tooltip and a legend', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}`);
    await fact(page, 'Runtime state').getByText('RUNNING', { exact: true }).waitFor();
    await fact(page, 'Runtime state').getByText('the game is running').waitFor();
    await fact(page, 'Convergence').getByText('CONVERGED', { exact: true }).waitFor();
    await fact(page, 'Convergence').getByText('in sync with what you asked').waitFor();
    await fact(page, 'Phase').getByText('READY', { exact: true }).waitFor();
    await fact(page, 'Phase').getByText('installed, can start').waitFor();
    expect(await page.locator('dt:text-is("Runtime state")').getAttribute('title')).to.include('status.runtimeState');
    expect(await page.locator('dt:text-is("Generation")').getAttribute('title')).to.include('observedGeneration');
    await page.getByText('What these mean').click();
    await page.getByRole('group').filter({ hasText: 'What these mean' }).getByText(/whether the server is as you asked/).waitFor();
    await screenshot(page, 'operator-state-words');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Servers' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'survival' }) });
    expect(await row.getByText('CONVERGED', { exact: true }).getAttribute('title')).to.equal('in sync with what you asked');
  });

  it('a crash an automatic restart healed stays on the page: when, how, restarted, and its last lines', async () => {
    const said = await f.admin.post(`/servers/${serverId}/console/commands`, { command: 'say just before the crash' });
    expect(said.status, said.text).to.equal(200);
    const crashed = await f.admin.post(`/servers/${serverId}/console/commands`, { command: 'crash' });
    expect(crashed.status, crashed.text).to.equal(200);
    const healed = await waitForServer(f.admin, serverId, (s) => Boolean(s.status.lastCrash && s.status.startedAt && s.status.startedAt > s.status.lastCrash.at && s.status.runtimeState === 'RUNNING'), 'restarted after the crash', 30_000);
    expect(healed.status.lastCrash?.lastLines.at(-1)).to.include('just before the crash');
    expect(healed.status.lastCrash?.restarts).to.equal(1);

    await page.goto(`${f.t.baseUrl}/servers/${serverId}`);
    const notice = page.getByRole('region', { name: 'Last crash' });
    await notice.getByText(/Crashed at .+ \(exit code 1\), restarted 1× automatically\./).waitFor();
    await notice.getByText(/Running again since .+; the game is RUNNING\./).waitFor();
    await notice.getByText(healed.status.lastCrash!.lastLines.at(-1)!, { exact: true }).waitFor();
    await notice.getByText(/The last \d+ lines before the crash/).click();
    await notice.locator('pre').filter({ hasText: 'Done (' }).waitFor();
    await screenshot(page, 'operator-crash-healed');
  });
});
