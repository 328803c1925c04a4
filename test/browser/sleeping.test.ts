import { expect } from 'chai';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { AuditEventPage, ServerDetail, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { screenshot, signedInPage } from './support-admin.js';
import { fact } from './browser.js';

/** The value shown next to a term of the server page's facts (Runtime state, Phase, …). */

/**
 * Sleeping servers in the web UI, against a real Controller and a fake Node that reports sleep
 * as the Agent would: the Settings form's `sleep` reaches the API and the Node, a refusal is
 * shown under its field, a sleeping server reads SLEEPING with its time wherever its state is
 * shown, the Overview counts it apart, and Start wakes it.
 */
describe('web UI: sleeping servers', function () {
  this.timeout(90_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let templatesDir: string;
  let browser: Browser;
  let page: Page;
  let teamId: string;
  let serverId: string;
  const pageErrors: string[] = [];

  const create = async (name: string, template: string) => {
    const created = await admin.post<ServerDetail>('/servers', { name, teamId, software: { template, version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId });
    expect(created.status, created.text).to.equal(201);
    await waitForServer(admin, created.body.id, (s) => s.phase === 'READY', `${name} READY`, 10_000);
    return created.body.id;
  };
  const sleepOf = async (id: string) => (await admin.get<ServerDetail>(`/servers/${id}`)).body.sleep;

  /** The Settings tab's Sleep form, waited for. */
  async function sleepForm(id: string) {
    await page.goto(`${t.baseUrl}/servers/${id}/settings`);
    const form = page.getByRole('form', { name: 'Sleep' });
    await form.waitFor();
    return form;
  }

  before(async () => {
    // simcraft, and the same without a player count (no `status`): a template the API refuses to let sleep.
    templatesDir = await mkdtemp(join(tmpdir(), 'cairn-sleep-templates-'));
    await copyFile('templates/simcraft.json', join(templatesDir, 'simcraft.json'));
    const { status: _, ...mute } = JSON.parse(await readFile('templates/simcraft.json', 'utf8')) as Record<string, unknown>;
    await writeFile(join(templatesDir, 'simcraft-mute.json'), JSON.stringify({ ...mute, id: 'simcraft-mute', name: 'Simcraft without a player count' }));
    t = await startTestController({ extraArgs: ['--templates-dir', templatesDir] });
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-a');
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    serverId = await create('lobby', 'simcraft');
    expect((await admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(admin, serverId, (s) => s.status.runtimeState === 'RUNNING', 'lobby RUNNING', 5_000);
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors, undefined, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await browser?.close();
    await t?.dispose();
    if (templatesDir) await rm(templatesDir, { recursive: true, force: true });
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- before() may have failed before opening the page
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, `sleeping-failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('Settings: Sleep when empty PATCHes sleep (seconds as typed, Wake on join), null when unchecked; the API\'s refusal of the seconds is under their field', async () => {
    const form = await sleepForm(serverId);
    const enabled = form.getByLabel('Sleep when empty');
    const seconds = form.getByLabel('Seconds empty before sleeping');
    const wake = form.getByLabel('Wake on join');
    const save = form.getByRole('button', { name: 'Save sleep' });
    expect(await enabled.isChecked()).to.equal(false);
    expect(await seconds.isDisabled(), 'the seconds wait for the checkbox').to.equal(true);
    expect(await wake.isChecked(), 'Wake on join is on unless unchecked').to.equal(true);

    await enabled.check();
    await seconds.fill('5');
    await save.click();
    await form.getByRole('alert').filter({ hasText: 'Give 10 or more.' }).waitFor();
    expect(await seconds.getAttribute('aria-invalid')).to.equal('true');
    expect(await sleepOf(serverId), 'nothing was stored').to.equal(undefined);

    await seconds.fill('90');
    await form.getByText('1 minute 30 seconds with no player online.').waitFor();
    await wake.uncheck();
    await save.click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(await sleepOf(serverId)).to.deep.equal({ afterEmptySeconds: 90, wakeOnJoin: false });
    await waitFor(() => agent.desiredOf(serverId)?.sleep?.afterEmptySeconds === 90, { what: 'the Node to be told the sleep policy', explain: () => JSON.stringify(agent.desiredOf(serverId)?.sleep) });
    expect(agent.desiredOf(serverId)?.sleep?.wakeOnJoin).to.equal(false);
    await form.getByText('Now it sleeps after 1 minute 30 seconds without players; only Start wakes it.').waitFor();

    await enabled.uncheck();
    await save.click();
    await waitFor(async () => (await sleepOf(serverId)) === undefined, { what: 'sleep: null to turn sleep off' });
    await form.getByText('Now it never sleeps.').waitFor();

    await enabled.check();
    await seconds.fill('600');
    await wake.check();
    await save.click();
    await waitFor(async () => (await sleepOf(serverId))?.afterEmptySeconds === 600, { what: 'sleep after 600 s' });
    expect(await sleepOf(serverId)).to.deep.equal({ afterEmptySeconds: 600, wakeOnJoin: true });
    await screenshot(page, 'sleeping-settings');
  });

  it('Settings: a template without a player count is refused, and the refusal is shown under Sleep when empty', async () => {
    const quiet = await create('quiet', 'simcraft-mute');
    const form = await sleepForm(quiet);
    await form.getByLabel('Sleep when empty').check();
    await form.getByRole('button', { name: 'Save sleep' }).click();
    const refusal = form.getByRole('alert').filter({ hasText: 'no player count' });
    await refusal.waitFor();
    expect(await form.getByLabel('Sleep when empty').getAttribute('aria-invalid')).to.equal('true');
    expect(await form.getByRole('alert').count(), 'shown once, under its field').to.equal(1);
    expect(await sleepOf(quiet)).to.equal(undefined);
  });

  it('a sleeping server reads SLEEPING with its time on its page, in the Servers list and in the Overview\'s counts', async () => {
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    await page.goto(`${t.baseUrl}/servers/${serverId}`);
    await fact(page, 'Runtime state').getByText('RUNNING', { exact: true }).waitFor();
    agent.send({ serverId, runtimeState: 'RUNTIME_STATE_STOPPED', sleeping: { since } });
    await waitForServer(admin, serverId, (s) => s.status.sleeping === true, 'lobby sleeping', 5_000);

    // The page formats the time as it does every other: in the browser's own locale and zone.
    const shown = await page.evaluate<string>(`new Date(${JSON.stringify(since)}).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })`);
    const runtime = fact(page, 'Runtime state');
    await runtime.getByText('SLEEPING', { exact: true }).waitFor();
    await runtime.getByText(`Sleeping since ${shown}: the game is stopped while nobody plays; a player joining or Start wakes it.`).waitFor();
    expect(await fact(page, 'Convergence').textContent()).to.match(/^CONVERGED/);
    expect(await page.getByRole('group', { name: 'Power' }).getByRole('button', { name: 'Start', exact: true }).isEnabled(), 'a start wakes it').to.equal(true);
    await page.getByText('What these mean').click();
    await page.locator('.state-legend').getByText('status.sleeping / status.sleepingSince').waitFor();
    await screenshot(page, 'sleeping-server-page');

    await page.goto(`${t.baseUrl}/servers`);
    const row = page.getByRole('table', { name: 'Servers' }).getByRole('row').filter({ has: page.getByRole('link', { name: 'lobby', exact: true }) });
    await row.getByText('SLEEPING', { exact: true }).waitFor();
    const quietRow = page.getByRole('table', { name: 'Servers' }).getByRole('row').filter({ has: page.getByRole('link', { name: 'quiet', exact: true }) });
    expect(await quietRow.getByText('SLEEPING').count(), 'only the sleeping server').to.equal(0);

    await page.goto(`${t.baseUrl}/overview`);
    await page.getByText('2 servers in all. 1 sleeping.').waitFor();
    const byRuntime = page.getByRole('table', { name: 'Servers by runtime state' });
    await byRuntime.getByRole('row').filter({ hasText: 'SLEEPING' }).getByRole('cell', { name: '1', exact: true }).waitFor();
    expect(await byRuntime.getByRole('row').filter({ hasText: 'STOPPED' }).getByRole('cell', { name: '1', exact: true }).count(), 'quiet alone is STOPPED').to.equal(1);
    await screenshot(page, 'sleeping-overview');
  });

  it('Start on a sleeping server wakes it: the Node is told to wake, and the page shows it running', async () => {
    const wakesBefore = agent.desiredOf(serverId)?.wakeNonce ?? 0;
    await page.goto(`${t.baseUrl}/servers/${serverId}`);
    await fact(page, 'Runtime state').getByText('SLEEPING', { exact: true }).waitFor();
    await page.getByRole('group', { name: 'Power' }).getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(() => (agent.desiredOf(serverId)?.wakeNonce ?? 0) > wakesBefore, { what: 'the Node to be told to wake the server', explain: () => `wakeNonce ${agent.desiredOf(serverId)?.wakeNonce}` });
    // The fake Node starts the game at once and reports it, as the Agent does once the game runs. The
    // start's own answer (from before that report) may show the server asleep for a moment after the
    // watch stream said it runs, until the detail is fetched again: the page settles on RUNNING.
    await page.getByText('Sleeping since').waitFor({ state: 'detached' });
    await fact(page, 'Runtime state').getByText('RUNNING', { exact: true }).waitFor();
    await waitForServer(admin, serverId, (s) => s.status.runtimeState === 'RUNNING' && !s.status.sleeping, 'lobby awake', 5_000);
    const audit = await admin.get<AuditEventPage>(`/audit-events?action=server.start&targetId=${serverId}`);
    expect(audit.body.items.map((e) => e.outcome), 'the first start (before the tests) and the wake, each audited').to.deep.equal(['SUCCESS', 'SUCCESS']);
  });
});
