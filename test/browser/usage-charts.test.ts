import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Static } from 'typebox';
import type { ServerUsage } from '../../src/controller/schemas/usage.js';
import { adminCredentials } from '../support/controller.js';
import type { ServerDetail, ServerListItem } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { freePort } from '../support/sim-process.js';
import { waitFor } from '../support/wait-for.js';
import { desktop, expectNoSidewaysScroll, openSection, phone, screenshot, signedInPage } from './support-admin.js';

type Usage = Static<typeof ServerUsage>;

const small = { cpuMillis: 100, memoryBytes: GiB / 16 };
/** The Agent samples every 10 s and pings every 10 s: a change shows within two rounds and some. */
const agentRound = 30_000;

/** The text of the element a chart's aria-describedby names: its value now. */
async function valueOf(chart: Locator): Promise<string> {
  const id = await chart.getAttribute('aria-describedby');
  expect(id, 'the chart names its value').to.be.a('string');
  return (await chart.page().locator(`[id="${id}"]`).textContent()) ?? '';
}

/** Charts take a new width at their ResizeObserver's next callback, not at once: polled. */
async function noSidewaysScroll(page: Page): Promise<void> {
  const fits = () => page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth');
  await waitFor(async () => (await fits()) || undefined, { what: 'no sideways scroll', timeoutMs: 5_000 });
}

/**
 * The usage charts on the server page, the proxy's players on the Network page and the Overview
 * page, against a Controller with a real Agent running simcraft (which answers the Server List
 * Ping; `fakeplayers <n>` sets its count) and simproxy (which answers with its lobby's status).
 */
describe('web UI: usage charts and the overview', function () {
  this.timeout(120_000);
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  let charted: string;
  let idle: string;
  const pageErrors: string[] = [];

  const create = async (name: string, inNetwork: boolean) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: small, nodeId: f.nodeId, inNetwork });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', `${name} READY`);
    return res.body.id;
  };
  const chart = (name: string) => page.getByRole('img', { name, exact: true });

  before(async () => {
    f = await startFleet();
    charted = await create('charted', true);
    idle = await create('idle', false);
    expect((await f.admin.post(`/servers/${charted}/start`)).status).to.equal(202);
    await waitForServer(f.admin, charted, (s) => s.status.runtimeState === 'RUNNING', 'charted RUNNING', 30_000);
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors, adminCredentials, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('the server page charts CPU, memory and players with their values now, over the chosen window', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${charted}/console`);
    // The first sample comes at the Agent's next round after the start.
    await chart('CPU usage').waitFor({ timeout: agentRound });
    for (const name of ['CPU usage', 'Memory usage', 'Players online']) {
      expect(await chart(name).locator('canvas').count(), `${name} drawn on a canvas`).to.equal(1);
    }
    expect(await valueOf(chart('CPU usage'))).to.match(/^\d+(\.\d+)? CPU$/);
    expect(await valueOf(chart('Memory usage'))).to.match(/^\d+(\.\d+)? (B|KiB|MiB|GiB)$/);
    await waitFor(async () => (await valueOf(chart('Players online'))) === '0 / 20' || undefined, { what: 'Players online 0 / 20', timeoutMs: agentRound });

    const span = page.getByLabel('Window');
    expect(await span.inputValue()).to.equal('1h');
    expect(await Promise.all((await span.locator('option').all()).map((o) => o.getAttribute('value')))).to.deep.equal(['10m', '1h', '6h', '24h']);
    const asked = page.waitForResponse((r) => r.url().includes(`/servers/${charted}/usage?window=10m`));
    await span.selectOption('10m');
    const answer = await asked;
    expect(answer.status()).to.equal(200);
    expect(((await answer.json()) as Usage).window).to.equal('10m');
    await chart('CPU usage').waitFor();
  });

  it('the players online follow the game while the page stays open', async () => {
    await page.getByLabel('Command').fill('fakeplayers 3');
    await page.getByRole('button', { name: 'Send' }).click();
    await waitFor(async () => (await valueOf(chart('Players online'))) === '3 / 20' || undefined, { what: 'Players online 3 / 20 without a reload', timeoutMs: agentRound });
    // The chart's series has it too: the page reads the usage again at its interval, and a sample of 3 players comes in.
    await page.waitForResponse(async (r) => r.url().includes(`/servers/${charted}/usage?window=10m`)
      && ((await r.json()) as Usage).items.at(-1)?.playersOnline === 3, { timeout: agentRound });
    await page.getByRole('heading', { name: 'Usage' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'usage-charts');
    await page.setViewportSize(phone);
    await noSidewaysScroll(page);
    await screenshot(page, 'usage-charts-phone');
    await page.setViewportSize(desktop);
  });

  it('a server that never ran says it has no samples yet, and draws no chart', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${idle}/console`);
    await page.getByRole('region', { name: 'Usage' }).getByText(/^No usage recorded in this window yet: the Node takes a sample every 10 s/).waitFor();
    expect(await chart('CPU usage').count()).to.equal(0);
  });

  it('the Network page shows the players through the proxy: simproxy answers a ping with its lobby\'s status', async () => {
    // A private port for the network: the usual Minecraft port belongs to whatever else runs on this machine.
    expect((await f.admin.patch('/network', { port: await freePort() })).status).to.equal(200);
    const proxy = await f.admin.post<ServerDetail>('/network/proxy', { software: { template: 'simproxy', version: '3.4.0' }, resources: small, nodeId: f.nodeId });
    expect(proxy.status, proxy.text).to.equal(201);
    await waitForServer(f.admin, proxy.body.id, (s) => s.phase === 'READY', 'proxy READY');
    expect((await f.admin.post(`/servers/${proxy.body.id}/start`)).status).to.equal(202);
    await openSection(page, 'Network', 'Network');
    await page.getByText('Players online: 3 / 20').waitFor({ timeout: agentRound });
  });

  it('the Overview page, linked from the navigation, counts servers, shows Nodes\' capacity and the players', async () => {
    await openSection(page, 'Overview', 'Overview');
    const servers = (await f.admin.get<{ items: ServerListItem[] }>('/servers')).body.items;
    expect(servers.map((s) => s.phase)).to.deep.equal(['READY', 'READY', 'READY']);
    await page.getByText('3 servers in all.').waitFor();
    const byPhase = page.getByRole('table', { name: 'Servers by phase' });
    expect(await byPhase.getByRole('row').filter({ hasText: 'READY' }).getByRole('cell').nth(1).textContent()).to.equal('3');
    const byConvergence = page.getByRole('table', { name: 'Servers by convergence' });
    for (const convergence of new Set(servers.map((s) => s.convergence))) {
      const count = servers.filter((s) => s.convergence === convergence).length;
      expect(await byConvergence.getByRole('row').filter({ hasText: convergence }).getByRole('cell').nth(1).textContent(), convergence).to.equal(String(count));
    }
    await page.getByText('No server has a condition.').waitFor();
    const node = page.getByRole('table', { name: 'Nodes\' capacity' }).getByRole('row').filter({ hasText: 'node-1' });
    // Three servers of 100m and 64 MiB each, the proxy too, on a Node offering 8 CPU and 8 GiB.
    await node.getByRole('cell', { name: '0.3 CPU of 8 CPU' }).waitFor();
    await node.getByRole('cell', { name: '192 MiB of 8 GiB' }).waitFor();
    const players = page.getByRole('region', { name: 'Players online' });
    await players.getByText('3 / 20', { exact: true }).waitFor();
    await players.getByText('3 on 1 member', { exact: true }).waitFor();
    // One Controller on the embedded store, driving the one Node; the Nodes page names it too.
    const cluster = (await f.admin.get<{ controllers: { id: string; address: string }[] }>('/cluster')).body;
    expect(cluster.controllers).to.have.length(1);
    const [self] = cluster.controllers;
    const row = page.getByRole('table', { name: 'Controllers' }).getByRole('row').filter({ hasText: self.id.slice(0, 8) });
    await row.getByRole('cell', { name: self.address }).waitFor();
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();
    await screenshot(page, 'overview');
    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'overview-phone');
    await page.setViewportSize(desktop);
    await openSection(page, 'Nodes', 'Nodes');
    const nodeRow = page.getByRole('table', { name: 'Nodes' }).getByRole('row').filter({ hasText: 'node-1' });
    await nodeRow.getByRole('cell', { name: self.id.slice(0, 8) }).waitFor();
  });

  it('a Node that does not answer shows the problem instead of the charts', async () => {
    await f.agent.kill();
    await page.goto(`${f.t.baseUrl}/servers/${charted}/console`);
    await page.getByRole('region', { name: 'Usage' }).getByRole('alert').filter({ hasText: 'Node is not connected or did not answer in time' }).waitFor();
    expect(await chart('CPU usage').count()).to.equal(0);
  });
});
