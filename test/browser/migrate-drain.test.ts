import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { Node, ServerDetail, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeFiles } from '../support/fake-files.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { desktop, expectNoSidewaysScroll, phone, screenshot, signedInPage } from './support-admin.js';
import { fact } from './browser.js';

const world = { 'server.properties': 'motd=hello\n', 'world/level.dat': 'level', 'world/region/r.0.0.mca': 'x'.repeat(2 * 1024 * 1024 + 7) };

/** A Node with a fake Agent that keeps its servers' files in memory. */
interface FakeNode {
  agent: FakeAgent;
  files: FakeFiles;
  nodeId: string;
}

/** The value shown next to a term of the server page's facts (Phase, Node, …). */

/**
 * Migration and drain through the web UI against a real Controller and fake Agents that keep files
 * in memory: a failed migration shows its MIGRATION_FAILED condition, a migration started from the
 * Settings tab shows its step live, and draining the new Node from the Nodes page brings the server
 * back. Each outcome is checked through the API and on the fake Nodes.
 */
describe('web UI: migrating a server and draining a Node', function () {
  this.timeout(90_000);
  let t: TestController;
  let admin: ApiClient;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  const nodes: Record<string, FakeNode> = {};
  const pageErrors: string[] = [];

  const addNode = async (name: string) => {
    const agent = await FakeAgent.connect(admin, t.controller.grpcPort, name);
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: `${name} to accept placements` });
    nodes[name] = { agent, files: new FakeFiles(agent), nodeId: agent.nodeId };
  };
  const settled = () => waitForServer(admin, serverId, (s) => s.phase === 'READY' && !s.workflow, 'the migration to end', 15_000);

  /** Opens the Settings tab and asks to migrate to `target` through the Migration region and its dialog, up to the confirming click. */
  async function askToMigrate(target: string): Promise<ReturnType<Page['getByRole']>> {
    await page.goto(`${t.baseUrl}/servers/${serverId}/settings`);
    const region = page.getByRole('region', { name: 'Migration' });
    const select = region.getByLabel('Target Node');
    await select.locator('option', { hasText: target }).waitFor({ state: 'attached' });
    await select.selectOption({ label: target });
    await region.getByRole('button', { name: 'Migrate' }).click();
    const dialog = page.getByRole('dialog', { name: `Migrate mover to ${target}?` });
    await dialog.getByText(`are copied to ${target} while it runs`).waitFor();
    return dialog;
  }

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    for (const name of ['alpha', 'beta']) await addNode(name);
    const created = await admin.post<ServerDetail>('/servers', {
      name: 'mover', teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 }, nodeId: nodes.alpha.nodeId,
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'mover READY', 5_000);
    nodes.alpha.files.seed(serverId, world);
    expect((await admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(admin, serverId, (s) => s.status.runtimeState === 'RUNNING', 'mover RUNNING', 5_000);
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    for (const n of Object.values(nodes)) n.agent.stop();
    await browser?.close();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- before() may have failed before opening the page
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, `backups-failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('Settings: offers only the other Nodes; a migration that fails shows MIGRATION_FAILED with its cause in Conditions and leaves the server where it was', async () => {
    await page.goto(`${t.baseUrl}/servers/${serverId}/settings`);
    const select = page.getByRole('region', { name: 'Migration' }).getByLabel('Target Node');
    await select.locator('option', { hasText: 'beta' }).waitFor({ state: 'attached' });
    expect(await select.locator('option').allTextContents(), 'the server\'s own Node is not offered').to.deep.equal(['beta']);

    nodes.beta.files.corrupt = true;
    const dialog = await askToMigrate('beta');
    await dialog.getByRole('button', { name: 'Migrate' }).click();
    const conditions = page.getByRole('region', { name: 'Conditions' });
    await conditions.getByText('MIGRATION_FAILED', { exact: true }).waitFor({ timeout: 15_000 });
    nodes.beta.files.corrupt = false;
    const back = await settled();
    expect(back.nodeId).to.equal(nodes.alpha.nodeId);
    expect(back.conditions.map((c) => c.reason)).to.include('MIGRATION_FAILED');
    expect(nodes.alpha.files.files(serverId)).to.deep.equal(world);
    await screenshot(page, 'backups-migration-failed');
    await conditions.getByText('CHECKSUM_MISMATCH').waitFor();
    // Acknowledging a workflow's failure clears it.
    await conditions.getByRole('button', { name: 'Acknowledge' }).click();
    await conditions.waitFor({ state: 'detached' });
    expect((await admin.get<ServerDetail>(`/servers/${serverId}`)).body.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
  });

  it('Settings: Migrate after confirming shows "Migrating: <step>" live; the server runs on the Target Node with its files', async () => {
    const dialog = await askToMigrate('beta');
    await screenshot(page, 'backups-migrate-dialog');
    // Held, the source's Agent does not report the server stopped: the migration waits at `stopping`.
    nodes.alpha.agent.hold();
    try {
      await dialog.getByRole('button', { name: 'Migrate' }).click();
      const region = page.getByRole('region', { name: 'Migration' });
      await region.getByRole('status').filter({ hasText: 'Migrating: stopping (to beta)' }).waitFor({ timeout: 15_000 });
      await fact(page, 'Phase').getByText('MIGRATING', { exact: true }).waitFor();
      await screenshot(page, 'backups-migrating');
      await page.setViewportSize(phone);
      await expectNoSidewaysScroll(page);
      await screenshot(page, 'backups-migrating-phone');
      await page.setViewportSize(desktop);
    } finally {
      nodes.alpha.agent.release();
    }
    await fact(page, 'Node').getByText('beta', { exact: true }).waitFor({ timeout: 15_000 });
    await fact(page, 'Phase').getByText('READY', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Migration' }).getByRole('status').waitFor({ state: 'detached' });
    const moved = await settled();
    expect(moved.nodeId).to.equal(nodes.beta.nodeId);
    expect(moved.desiredState).to.equal('RUNNING');
    expect(nodes.beta.files.files(serverId)).to.deep.equal(world);
  });

  it('Nodes: Drain after confirming disables the Node and lists the server being moved until it has moved', async () => {
    await page.goto(`${t.baseUrl}/nodes?node=${nodes.beta.nodeId}`);
    const card = page.getByRole('region', { name: 'beta' });
    await card.getByRole('button', { name: 'Drain beta' }).click();
    const dialog = page.getByRole('dialog', { name: 'Drain beta?' });
    await dialog.getByText('every server on it is migrated').waitFor();
    await screenshot(page, 'backups-drain-dialog');
    await dialog.getByRole('button', { name: 'Drain' }).click();
    const drain = card.getByRole('region', { name: 'Drain' });
    await drain.getByRole('status').filter({ hasText: 'beta is DISABLED. Moving 1 server:' }).waitFor();
    const item = drain.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'mover' }) });
    await item.getByText('moved to alpha').waitFor({ timeout: 15_000 });
    await card.locator('dt:text-is("Admin state") + dd').getByText('DISABLED', { exact: true }).waitFor();
    await screenshot(page, 'backups-drain');
    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'backups-drain-phone');
    await page.setViewportSize(desktop);

    expect((await admin.get<Node>(`/nodes/${nodes.beta.nodeId}`)).body.adminState).to.equal('DISABLED');
    const back = await settled();
    expect(back.nodeId).to.equal(nodes.alpha.nodeId);
    expect(nodes.alpha.files.files(serverId)).to.deep.equal(world);
    expect(nodes.beta.files.servers.size).to.equal(0);
  });
});
