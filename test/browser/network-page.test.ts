import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { Network, NetworkRoutes, Node, ServerDetail, Team } from '../support/api-types.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';
import { desktop, expectNoSidewaysScroll, openSection, phone, screenshot, signedInPage } from './support-admin.js';

const small = { cpuMillis: 100, memoryBytes: GiB / 16 };

/**
 * The Network page and the Network member switch in a real browser against a Controller with a
 * fake Agent (servers run at once): each step is done through the UI and checked through the API.
 */
describe('web UI: the network page and the Network member switch', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let browser: Browser;
  let page: Page;
  let agent: FakeAgent;
  const servers: Record<string, string> = {};
  const pageErrors: string[] = [];
  let networkPort: number;

  async function capture(name: string): Promise<void> {
    await screenshot(page, `network-${name}`);
    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `network-${name}-phone`);
    await page.setViewportSize(desktop);
  }

  /** A READY, RUNNING server on the fake Node. */
  async function runningServer(name: string, teamId: string, template: string, inNetwork: boolean): Promise<string> {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: { template, version: '1.21.4' }, resources: small, nodeId: agent.nodeId, inNetwork });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', `${name} READY`, 5_000);
    expect((await admin.post(`/servers/${res.body.id}/start`)).status).to.equal(202);
    await waitForServer(admin, res.body.id, (s) => s.status.runtimeState === 'RUNNING', `${name} RUNNING`, 5_000);
    return res.body.id;
  }

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    // A private port for the network: the usual Minecraft port belongs to whatever else runs here.
    networkPort = (await privateGamePorts()).last;
    expect((await admin.patch('/network', { port: networkPort })).status).to.equal(200);
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'edge');
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    const teamId = (await admin.post<Team>('/teams', { name: 'blue' })).body.id;
    servers.alpha = await runningServer('alpha', teamId, 'simcraft', false);
    servers.bravo = await runningServer('bravo', teamId, 'simcraft', true);
    servers.plain = await runningServer('plain', teamId, 'vanilla', false);
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

  it('shows where players connect and creates the proxy through its form', async () => {
    await openSection(page, 'Network', 'Network');
    await page.getByText(`play.example.com:${networkPort}`).first().waitFor();
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByLabel('Template').selectOption('simproxy');
    await form.getByLabel('Version').selectOption('3.4.0');
    await form.getByLabel('CPU (millicores)').fill('100');
    await form.getByLabel('Memory (MiB)').fill('64');
    await form.getByLabel('Node').selectOption({ label: 'edge' });
    await form.getByRole('button', { name: 'Create proxy' }).click();

    const proxy = page.getByRole('region', { name: 'Proxy' });
    await proxy.getByRole('link').waitFor();
    const network = (await admin.get<Network>('/network')).body;
    expect(network.proxyServerId).to.be.a('string');
    const detail = (await admin.get<ServerDetail>(`/servers/${network.proxyServerId}`)).body;
    expect(detail).to.deep.include({ kind: 'PROXY', nodeId: agent.nodeId, gamePort: networkPort, software: { template: 'simproxy', version: '3.4.0' } });
    // On a timeout the message shows what the region held instead.
    await proxy.getByText(detail.phase, { exact: true }).waitFor().catch(async (e: unknown) => {
      throw new Error(`the Proxy region never showed ${detail.phase}; it shows: ${await proxy.innerHTML()}`, { cause: e });
    });
    expect(await proxy.getByRole('link').getAttribute('href')).to.equal(`/servers/${network.proxyServerId}`);
    await capture('proxy');
  });

  it('Settings: the Network member switch joins a running server, which shows RESTART_PENDING; a vanilla server cannot join', async () => {
    await page.goto(`${t.baseUrl}/servers/${servers.plain}/settings`);
    const plainSwitch = page.getByRole('checkbox', { name: 'Network member' });
    await plainSwitch.waitFor();
    await waitFor(async () => (await plainSwitch.isDisabled()) || undefined, { what: 'the vanilla switch disabled' });
    await page.getByText('vanilla servers cannot join the network').waitFor();

    // The fake Agent reports every running server as started with its desired membership, as if it
    // restarted at once; held, it reports nothing, so alpha goes on running as it was started.
    agent.hold();
    await page.goto(`${t.baseUrl}/servers/${servers.alpha}/settings`);
    const member = page.getByRole('checkbox', { name: 'Network member' });
    expect(await member.isChecked()).to.equal(false);
    await member.click();
    // Nothing is applied until the dialog, which says what happens to a running server, is confirmed.
    const confirm = page.getByRole('dialog', { name: 'Join the network?' });
    await confirm.getByText('alpha is running: it keeps running as it is, marked RESTART_PENDING, and joins the network when it restarts.').waitFor();
    expect((await admin.get<ServerDetail>(`/servers/${servers.alpha}`)).body.inNetwork).to.equal(false);
    await confirm.getByRole('button', { name: 'Join the network' }).click();
    await page.getByText('RESTART_PENDING: the change applies at the next start').waitFor();
    const alpha = (await admin.get<ServerDetail>(`/servers/${servers.alpha}`)).body;
    expect(alpha).to.deep.include({ inNetwork: true, markers: ['RESTART_PENDING'] });
    await capture('member-switch');
  });

  it('lists the members with their routes and markers, and saves the lobby', async () => {
    await openSection(page, 'Network', 'Network');
    const members = page.getByRole('region', { name: 'Members' });
    const bravo = members.getByRole('row', { name: /^bravo/ });
    await bravo.getByText('routed to').waitFor();
    const routes = (await admin.get<NetworkRoutes>('/network/routes')).body.items;
    expect(routes.map((r) => r.name)).to.deep.equal(['bravo']);
    await bravo.getByText(`${routes[0].address}:${routes[0].port}`).waitFor();
    const alpha = members.getByRole('row', { name: /^alpha/ });
    await alpha.getByText('not routed').waitFor();
    await alpha.getByText('RESTART_PENDING').waitFor();
    expect(await members.getByRole('row', { name: /^plain/ }).count()).to.equal(0);

    const lobby = members.getByRole('form', { name: 'Lobby' });
    await lobby.getByLabel('Lobby').selectOption({ label: 'bravo' });
    await lobby.getByRole('button', { name: 'Save lobby' }).click();
    await lobby.getByText('Lobby saved.').waitFor();
    expect((await admin.get<Network>('/network')).body.lobbyServerId).to.equal(servers.bravo);
    await bravo.getByText('lobby', { exact: true }).waitFor();
    await capture('page');
  });

  it('a member that is not running is not shown as routed; a crashed proxy says why in its card', async () => {
    await openSection(page, 'Network', 'Network');
    const bravo = page.getByRole('region', { name: 'Members' }).getByRole('row', { name: /^bravo/ });
    await bravo.getByText('routed to').waitFor();
    // The fake Agent is held since the switch test: this report is the only word on bravo.
    agent.send({ serverId: servers.bravo, runtimeState: 'RUNTIME_STATE_CRASHED', startedInNetwork: true });
    await bravo.getByText('CRASHED', { exact: true }).waitFor();
    expect(await bravo.getByText('routed to').count(), 'routed while CRASHED').to.equal(0);
    await bravo.getByText('not routed (CRASHED)').waitFor();

    const proxyId = (await admin.get<Network>('/network')).body.proxyServerId!;
    agent.send({
      serverId: proxyId, runtimeState: 'RUNTIME_STATE_CRASHED',
      conditions: [{ id: `${proxyId}:crash-loop`, reason: 'CRASH_LOOP', message: 'Crashed 3 times within 300 s; last exit code 1.', since: new Date().toISOString() }],
    });
    await page.getByRole('region', { name: 'Proxy' }).getByRole('alert').filter({ hasText: 'CRASH_LOOP: Crashed 3 times within 300 s; last exit code 1.' }).waitFor();
    await capture('failures');
  });

  it('admits a team through the Admitted teams form', async () => {
    await openSection(page, 'Network', 'Network');
    const form = page.getByRole('form', { name: 'Admitted teams' });
    const blue = form.getByRole('checkbox', { name: 'blue' });
    expect(await blue.isChecked()).to.equal(false);
    await blue.check();
    await form.getByRole('button', { name: 'Save admitted teams' }).click();
    await form.getByText('Saved.').waitFor();
    const teams = (await admin.get<{ items: Team[] }>('/teams')).body;
    expect((await admin.get<Network>('/network')).body.teamIds).to.deep.equal(teams.items.filter((x) => x.name === 'blue').map((x) => x.id));
  });

  it('the new-server form offers Network member for a member template and sends inNetwork', async () => {
    await page.goto(`${t.baseUrl}/servers/new`);
    await page.getByRole('heading', { level: 1, name: 'New server' }).waitFor();
    await page.getByLabel('Template').selectOption('vanilla');
    expect(await page.getByRole('checkbox', { name: 'Network member' }).count(), 'vanilla cannot join').to.equal(0);
    await page.getByLabel('Template').selectOption('simcraft');
    await page.getByLabel('Name').fill('charlie');
    await page.getByLabel('CPU (millicores)').fill('100');
    await page.getByLabel('Memory (MiB)').fill('64');
    await page.getByLabel('Node').selectOption({ label: 'edge' });
    await page.getByRole('checkbox', { name: 'Network member' }).check();
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.getByRole('heading', { level: 1, name: 'charlie' }).waitFor();
    const created = (await admin.get<{ items: ServerDetail[] }>('/servers?limit=200')).body.items.find((x) => x.name === 'charlie');
    expect(created?.inNetwork).to.equal(true);
  });
});
