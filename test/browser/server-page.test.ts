import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { adminCredentials } from '../support/controller.js';
import type { PropertiesView, ServerDetail } from '../support/api-types.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';
import { screenshot, signedInPage } from './support-admin.js';

const small = { cpuMillis: 100, memoryBytes: GiB / 16 };
/** A common laptop screen: what the server page must fit without scrolling to its controls. */
const laptop = { width: 1366, height: 900 };

/** Whether the element's box lies within the viewport, as the person sees it now. */
async function inViewport(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const size = page.viewportSize();
  return Boolean(box && size && box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width);
}

/**
 * The server page against a Controller with a real Agent (simcraft servers: files, properties,
 * plugins) and a fake Node (an install that fails, a vanilla server): what it offers and where.
 */
describe('web UI: the server page', function () {
  this.timeout(90_000);
  let f: Fleet;
  let fake: FakeAgent;
  let browser: Browser;
  let page: Page;
  let realId: string;
  const pageErrors: string[] = [];

  const create = async (name: string, template: string, version: string, nodeId: string) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: { template, version }, resources: small, nodeId });
    expect(res.status, res.text).to.equal(201);
    return res.body.id;
  };
  const open = async (serverId: string, tab: string) => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}/${tab}`);
    await page.getByRole('tablist', { name: 'Server sections' }).waitFor();
  };

  before(async () => {
    f = await startFleet();
    fake = await FakeAgent.connect(f.admin, f.t.controller.grpcPort, 'fake-node');
    realId = await create('real', 'simcraft', '1.21.4', f.nodeId);
    await waitForServer(f.admin, realId, (s) => s.phase === 'READY', 'real READY');
    // The file as a first start leaves it, less the keys the page shows as the game's defaults.
    const written = await f.admin.request('PUT', `/servers/${realId}/files/content?path=server.properties`, { rawBody: Buffer.from('server-port=30001\nlevel-name=world\n'), contentType: 'application/octet-stream' });
    expect(written.status, written.text).to.equal(204);
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors, adminCredentials, { viewport: laptop, timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    fake?.stop();
    await browser?.close();
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('a failed install says why Start is disabled and offers Retry install, which installs again', async () => {
    fake.hold();
    const id = await create('broken', 'simcraft', '1.21.4', fake.nodeId);
    fake.send({ serverId: id, observedGeneration: 1, installed: false, installError: 'download failed' });
    await waitForServer(f.admin, id, (s) => s.phase === 'FAILED', 'the install FAILED');
    await open(id, 'console');
    const start = page.getByRole('group', { name: 'Power' }).getByRole('button', { name: 'Start', exact: true });
    expect(await start.isDisabled()).to.equal(true);
    await page.getByText('The install failed: download failed. Retry the install first.').waitFor();
    await page.getByRole('button', { name: 'Retry install' }).click();
    await page.getByText(/The software is being installed/).waitFor();
    expect((await f.admin.get<ServerDetail>(`/servers/${id}`)).body.phase).to.equal('PROVISIONING');
    fake.release();
    await waitFor(async () => (await start.isEnabled()) || undefined, { what: 'Start enabled once installed' });
    expect(await page.getByRole('button', { name: 'Retry install' }).count()).to.equal(0);
  });

  it('at 1366×900 the console\'s command box is in view, and an opened file\'s editor is brought into view', async () => {
    await open(realId, 'console');
    const command = page.getByLabel('Command');
    await command.waitFor();
    expect(await inViewport(page, command), 'the command box within the viewport').to.equal(true);
    await screenshot(page, 'server-page-console-1366');
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.getByRole('button', { name: 'Edit server.properties' }).click();
    const editor = page.getByRole('heading', { name: 'Editing server.properties' });
    await page.getByRole('textbox', { name: 'Contents of server.properties' }).waitFor();
    await waitFor(async () => (await inViewport(page, editor)) || undefined, { what: 'the editor scrolled into view', timeoutMs: 5_000 });
  });

  it('properties show the game\'s defaults for keys the file lacks, and managed keys locked with why', async () => {
    await open(realId, 'properties');
    const view = (await f.admin.get<PropertiesView>(`/servers/${realId}/properties`)).body;
    expect(view.properties).to.not.have.property('motd');
    const motd = page.getByRole('row', { name: /^motd/ });
    expect(await motd.getByLabel('Value of motd').inputValue()).to.equal('A Minecraft Server');
    await motd.getByText('Game default (not in the file)').waitFor();
    const port = page.getByRole('row', { name: /^server-port/ });
    await port.getByText(/Locked: Cairn sets the ports/).waitFor();
    expect(await port.getByRole('textbox').count(), 'no field to type into').to.equal(0);
    await motd.getByLabel('Value of motd').fill('Hello from Cairn');
    await page.getByRole('button', { name: 'Save properties (1 changed)' }).click();
    await page.getByRole('status').filter({ hasText: 'applies at the next start' }).waitFor();
    expect((await f.admin.get<PropertiesView>(`/servers/${realId}/properties`)).body.properties.motd).to.equal('Hello from Cairn');
  });

  it('the catalog shows Installed (version) for a plugin installed as a dependency; a vanilla server has no Plugins tab', async () => {
    await open(realId, 'plugins');
    await page.getByLabel('Search plugins').fill('essentials');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'Install EssentialsX Chat' }).click();
    await page.getByRole('table', { name: 'Installed plugins' }).getByRole('row').filter({ hasText: 'VaultAPI' }).waitFor();
    await page.getByLabel('Search plugins').fill('vault');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const vault = page.getByRole('table', { name: 'Catalog plugins' }).getByRole('row').filter({ hasText: 'VaultAPI' });
    await vault.getByText(/^Installed \(.+\)$/).waitFor();
    expect(await vault.getByRole('button', { name: 'Install VaultAPI' }).count()).to.equal(0);

    const vanilla = await create('plain', 'vanilla', '1.21.4', fake.nodeId);
    await open(vanilla, 'console');
    await page.getByRole('tab', { name: 'Files' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Plugins' }).count()).to.equal(0);
  });
});
