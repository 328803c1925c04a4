import { expect } from 'chai';
import { createServer, type AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { fetchFailureWords, softwareDownloadFailure } from '../../src/controller/adapters/software/fetch-failure-words.js';
import { withDetails } from '../../src/shared/failure-text.js';
import type { ServerDetail, TemplatePage, TemplateVersionPage } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { desktop, expectNoSidewaysScroll, phone, screenshot, signedInPage } from './support-admin.js';

const hash = '9f'.repeat(32);
const jarUrl = `https://fill-data.papermc.io/v1/objects/${hash}/velocity-3.4.0-SNAPSHOT-500.jar`;
/** What reaches the Controller from an Agent whose install could not get its jar: built by the same code the Controller and Agent use. */
const offlineInstallError = withDetails(
  softwareDownloadFailure(jarUrl, 'unreachable', fetchFailureWords(jarUrl, Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }), 120_000)),
  `artifact ${hash}`, `fetching artifact ${hash} failed`,
);

/**
 * An offline Controller (its software sources refuse): the Network page's proxy whose install
 * could not download says so once, in words that wrap, hashes folded into Details; the New server
 * form opens on a template that can install and says why a list is suspect or empty.
 */
describe('web UI: what an offline Controller says about software', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let refused: string;

  before(async () => {
    // A port just freed refuses (fetch will not even try port 1, a "bad port").
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closed = `127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
    refused = `could not reach ${closed}: ECONNREFUSED`;
    t = await startTestController({ extraArgs: ['--software-source', `papermc=http://${closed}/v3`, '--software-source', `mojang=http://${closed}/mc.json`, '--software-source', `fabric=http://${closed}/v2`] });
    ({ admin } = await setupAdmin(t));
    // The sync at start fails at once (the port refuses); the forms must say so.
    await waitFor(async () => (await admin.get<TemplatePage>('/templates')).body.items.find((i) => i.id === 'paper')?.syncError !== undefined, { what: 'the first sync to fail' });
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'edge');
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await browser?.close();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('the Network page: a proxy that could not download says what failed once, in words that wrap; the hashes sit in Details', async () => {
    const version = (await admin.get<TemplateVersionPage>('/templates/velocity/versions')).body.items[0].version;
    agent.hold();
    const created = await admin.post<ServerDetail>('/network/proxy', { software: { template: 'velocity', version }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId });
    expect(created.status, created.text).to.equal(201);
    agent.send({ serverId: created.body.id, observedGeneration: 1, installed: false, installError: offlineInstallError });
    await waitForServer(admin, created.body.id, (s) => s.phase === 'FAILED', 'the proxy\'s install FAILED');

    await page.goto(`${t.baseUrl}/network`);
    const card = page.getByRole('region', { name: 'Proxy' });
    const why = card.getByRole('alert');
    await why.filter({ hasText: 'Could not look up fill-data.papermc.io' }).waitFor();
    const shown = await why.innerText();
    expect(shown.match(/Could not look up/g), 'the words once').to.have.length(1);
    expect(shown).to.contain('it needs outbound HTTPS to fill-data.papermc.io, or a mirror named with --software-source');
    expect(shown, 'no hash among the words').not.to.match(/[0-9a-f]{40}/);
    await why.getByText('Details').click();
    await why.getByText(`artifact ${hash}`, { exact: true }).waitFor();

    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    // A string, evaluated in the page: the test's TypeScript has no DOM types.
    const { scrollWidth, clientWidth } = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
      '(({ scrollWidth, clientWidth }) => ({ scrollWidth, clientWidth }))(document.querySelector(\'[aria-labelledby="proxy-heading"]\'))',
    );
    expect(scrollWidth, 'the card holds its text').to.be.at.most(clientWidth);
    await screenshot(page, 'offline-proxy-phone');
    await page.setViewportSize(desktop);
  });

  it('New server: opens on a template that installs offline, warns that a list is the shipped one, says why a list is empty', async () => {
    await page.goto(`${t.baseUrl}/servers/new`);
    const template = page.getByLabel('Template');
    await template.locator('option', { hasText: 'Paper' }).waitFor({ state: 'attached' });
    expect(await template.locator('option').first().textContent()).to.equal('Simcraft (simulated Minecraft server)');
    expect(await template.inputValue()).to.equal('simcraft');
    expect(await page.getByRole('note', { name: 'About these versions' }).count(), 'simcraft needs no warning').to.equal(0);

    await template.selectOption('paper');
    const note = page.getByRole('note', { name: 'About these versions' });
    await note.filter({ hasText: 'The last version sync failed' }).waitFor();
    expect(await note.textContent()).to.match(new RegExp(`^The last version sync failed: ${refused}\\. These versions come from the list shipped with Cairn`));

    await template.selectOption('folia');
    await note.filter({ hasText: 'No versions to offer' }).waitFor();
    expect(await page.getByLabel('Version').locator('option').count()).to.equal(0);
    await screenshot(page, 'offline-new-server-folia');
  });
});
