import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import type { MembershipPage, Node, RolePage, ServerDetail, TeamPage, TemplatePage, User, UserPage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { desktop, expectNoSidewaysScroll, openSection, phone, screenshot, signedInPage } from './support-admin.js';

/**
 * The administration pages in a real browser against a real Controller: every step is done
 * through the UI, and what it changed is checked through the API.
 */
describe('web UI: administration pages', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let browser: Browser;
  let page: Page;
  let agent: FakeAgent | undefined;
  const pageErrors: string[] = [];

  /** The page as a person sees it on a desktop and on a phone, which must not scroll sideways. */
  async function capture(name: string): Promise<void> {
    await screenshot(page, `admin-${name}`);
    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `admin-${name}-phone`);
    await page.setViewportSize(desktop);
  }

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    const member = await admin.post('/users', { username: 'mia', email: 'mia@example.com', displayName: 'Mia', password: 'first-password-1' });
    expect(member.status, member.text).to.equal(201);
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors));
  });

  after(async () => {
    agent?.stop();
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('Nodes: a new Node shows the exact cairn-agent command with a working one-time token; Disable and Enable', async () => {
    await openSection(page, 'Nodes', 'Nodes');
    const form = page.getByRole('form', { name: 'New Node' });
    await form.getByLabel('Name').fill('edge-1');
    // The API's refusal is shown under the field it names.
    await form.getByLabel('Address').fill('edge1.example.com:27015');
    await form.getByRole('button', { name: 'Create Node' }).click();
    expect(await form.getByRole('alert').textContent()).to.include('without a port');
    expect(await form.getByLabel('Address').getAttribute('aria-invalid')).to.equal('true');
    await form.getByLabel('Address').fill('edge1.example.com');
    await form.getByRole('button', { name: 'Create Node' }).click();

    const shown = page.getByRole('region', { name: 'Enroll the Agent of edge-1' });
    await shown.getByText('Shown only now.').waitFor();
    const token = await shown.getByLabel('Enrollment token').inputValue();
    expect(token).to.match(/^cairn_enr_[0-9A-Za-z]{40}$/);
    const command = await shown.getByLabel('Agent command').inputValue();
    expect(command).to.equal(`cairn-agent --controller 127.0.0.1:${t.controller.grpcPort} --data-dir /var/lib/cairn-agent --enrollment-token ${token}`);
    await shown.getByLabel('Agent data directory').fill('/srv/cairn agent');
    expect(await shown.getByLabel('Agent command').inputValue()).to.include("--data-dir '/srv/cairn agent' ");
    // 127.0.0.1 works only on this host: the panel says so, how to change it, and how to get cairn-agent elsewhere.
    const reach = shown.getByRole('note', { name: 'Reaching the Controller' });
    expect(await reach.textContent()).to.match(/listens on 127\.0\.0\.1, the loopback address: this command works only on the Controller's own host\. For an Agent on another host, restart the Controller with --host 0\.0\.0\.0/);
    expect(await reach.getByRole('link', { name: 'Steps: Several hosts' }).getAttribute('href')).to.match(/docs\/operations\.md#several-hosts$/);
    expect(await shown.getByLabel('Install cairn-agent on another host').inputValue()).to.match(/^git clone \S+ \/opt\/cairn && cd \/opt\/cairn && npm ci && npm run build && npm link$/);

    // The command works: an Agent enrolls with exactly that address and token.
    const address = /--controller (\S+)/.exec(command)![1];
    const javas = [
      { name: 'java', version: '21.0.5', major: 21, path: '/usr/lib/jvm/java-21-openjdk-amd64/bin/java' },
      { name: 'java', version: '17.0.15', major: 17, path: '/usr/lib/jvm/java-17-openjdk-amd64/bin/java' },
    ];
    agent = await FakeAgent.enroll(address, /--enrollment-token (\S+)/.exec(command)![1], 'edge-1', undefined, { runtimes: javas });
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.to.include(token);

    await page.getByRole('link', { name: 'edge-1' }).click();
    const detail = page.getByRole('region', { name: 'edge-1' });
    await detail.getByText('HEALTHY').waitFor({ timeout: 15_000 });
    await detail.getByText('0 CPU of 8 CPU reserved, 8 CPU free').waitFor();
    // The Javas it found, lowest major first, each with the path it runs from.
    expect(await detail.getByRole('definition').filter({ hasText: 'Java 17' }).getByRole('listitem').allTextContents()).to.deep.equal([
      'Java 17 (17.0.15) /usr/lib/jvm/java-17-openjdk-amd64/bin/java', 'Java 21 (21.0.5) /usr/lib/jvm/java-21-openjdk-amd64/bin/java',
    ]);
    expect(await detail.getByRole('meter', { name: 'Memory' }).getAttribute('max')).to.equal(String(8 * 2 ** 30));

    await detail.getByRole('button', { name: 'Disable' }).click();
    await detail.getByText('DISABLED', { exact: true }).waitFor();
    const disabled = (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body;
    expect(disabled).to.include({ adminState: 'DISABLED', acceptsPlacements: false });
    await detail.getByRole('button', { name: 'Enable' }).click();
    await detail.getByText('ENABLED', { exact: true }).waitFor();
    expect((await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.adminState).to.equal('ENABLED');
    await capture('nodes');
  });

  it('Teams: creates a team, adds a member with a role, and shows why a team with servers cannot be deleted', async () => {
    await openSection(page, 'Teams', 'Teams');
    const form = page.getByRole('form', { name: 'New team' });
    await form.getByLabel('Name').fill('Blue');
    await form.getByRole('button', { name: 'Create team' }).click();
    const detail = page.getByRole('region', { name: 'Blue' });
    const add = detail.getByRole('form', { name: 'Add a member' });
    await add.getByLabel('User').selectOption({ label: 'Mia (mia)' });
    await add.getByRole('checkbox', { name: 'operator' }).check();
    await add.getByRole('button', { name: 'Add member' }).click();
    await detail.getByRole('cell', { name: 'Mia (mia)', exact: true }).waitFor();
    await detail.getByRole('cell', { name: 'operator', exact: true }).waitFor();

    const team = (await admin.get<TeamPage>('/teams')).body.items.find((x) => x.name === 'Blue');
    const operator = (await admin.get<RolePage>('/roles')).body.items.find((r) => r.name === 'operator');
    const members = (await admin.get<MembershipPage>(`/teams/${team?.id}/members`)).body.items;
    expect(members.map((m) => m.roleIds)).to.deep.equal([[operator?.id]]);

    const simcraft = (await admin.get<TemplatePage>('/templates')).body.items.find((x) => x.id === 'simcraft');
    const server = await admin.post<ServerDetail>('/servers', {
      name: 'blue-lobby', teamId: team?.id, nodeId: agent!.nodeId,
      software: { template: 'simcraft', version: simcraft?.versions[0] }, resources: { cpuMillis: 1000, memoryBytes: 2 ** 30 },
    });
    expect(server.status, server.text).to.equal(201);
    await detail.getByRole('button', { name: 'Delete team Blue' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the team Blue?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    const refusal = await confirm.getByRole('alert').textContent();
    expect(refusal).to.match(/server/i);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await admin.get(`/teams/${team?.id}`)).status).to.equal(200);
    await capture('teams');
  });

  it('Users: creates a user with global nodes.manage and issues a password-reset link shown once that works', async () => {
    await openSection(page, 'Users', 'Users');
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill('carol');
    await form.getByLabel('Email').fill('carol@example.com');
    await form.getByLabel('Display name').fill('Carol');
    await form.getByLabel('Initial password').fill('first-password-1');
    await form.getByRole('checkbox', { name: 'Global nodes.manage' }).check();
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('cell', { name: 'carol', exact: true }).waitFor();
    const carol = (await admin.get<UserPage>('/users')).body.items.find((u) => u.username === 'carol');
    expect(carol).to.deep.include({ displayName: 'Carol', globalAdmin: false, globalPermissions: ['nodes.manage'], passwordChangeRequired: true });

    await page.getByRole('button', { name: 'Reset password of carol' }).click();
    const shown = page.getByRole('region', { name: 'Password-reset link for carol' });
    await shown.getByText('Shown only now.').waitFor();
    const link = await shown.getByLabel('Reset link').inputValue();
    expect(link).to.match(new RegExp(`^${t.baseUrl}/reset-password\\?token=[^&\\s]+$`));
    await capture('users');
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.to.include(new URL(link).searchParams.get('token')!);

    const stranger = await browser.newPage({ viewport: phone });
    try {
      await stranger.goto(link);
      await stranger.getByLabel('New password').fill('carols-own-password');
      await stranger.getByRole('button', { name: 'Reset password' }).click();
      await stranger.getByText('Your password has been changed.').waitFor();
    } finally {
      await stranger.close();
    }
    expect((await t.api.post('/auth/login', { username: 'carol', password: 'carols-own-password' })).status).to.equal(200);
  });

  it('Roles: built-ins are read-only; a custom role is created with two permissions', async () => {
    await openSection(page, 'Roles', 'Roles');
    await page.getByText('can be assigned to team members but not changed').waitFor();
    const viewer = page.getByRole('row', { name: /^viewer Built-in/ });
    await viewer.getByText('Read-only').waitFor();
    expect(await viewer.getByRole('button').count()).to.equal(0);

    const form = page.getByRole('form', { name: 'New role' });
    expect(await form.getByRole('checkbox').count()).to.equal(20);
    await form.getByLabel('Name').fill('deployer');
    await form.getByLabel('Description').fill('Starts and stops servers.');
    await form.getByRole('checkbox', { name: 'servers.start' }).check();
    await form.getByRole('checkbox', { name: 'servers.stop' }).check();
    await form.getByRole('button', { name: 'Create role' }).click();
    const row = page.getByRole('row', { name: /^deployer/ });
    await row.getByRole('button', { name: 'Edit deployer' }).waitFor();
    const role = (await admin.get<RolePage>('/roles')).body.items.find((r) => r.name === 'deployer');
    expect(role).to.deep.include({ builtin: false, description: 'Starts and stops servers.', permissions: ['servers.start', 'servers.stop'] });
    await capture('roles');
  });

  it('API tokens: a new token\'s secret is shown once and works as a bearer token', async () => {
    await openSection(page, 'API tokens', 'API tokens');
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('ci');
    await form.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('region', { name: 'New API token ci' });
    const secret = await shown.getByLabel('Token').inputValue();
    expect(secret).to.match(/^cairn_pat_[0-9A-Za-z]{40}$/);
    const me = await admin.anonymous().withToken(secret).get<User>('/me');
    expect(me.body.username).to.equal(adminCredentials.username);
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
    expect(await page.content()).not.to.include(secret);
    await capture('tokens');
  });

  it('API tokens: a limited token names its permissions and teams, and is refused beyond them', async () => {
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('restarter');
    await form.getByRole('checkbox', { name: 'Limit what this token can do' }).check();
    const permissions = form.getByRole('group', { name: 'Token permissions' });
    await permissions.getByRole('checkbox', { name: 'servers.read' }).check();
    await permissions.getByRole('checkbox', { name: 'servers.start' }).check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('region', { name: 'New API token restarter' });
    const secret = await shown.getByLabel('Token').inputValue();
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'servers.read, servers.start in all your teams' }).waitFor();
    const limited = admin.anonymous().withToken(secret);
    expect((await limited.get('/users')).status, 'no global administration through a limited token').to.equal(403);
    expect((await limited.get('/servers')).status).to.equal(200);
  });

  it('Audit log: lists what was done above and filters by action', async () => {
    await openSection(page, 'Audit log', 'Audit log');
    const actions = ['node.create', 'node.disable', 'node.enable', 'team.create', 'team.member_set', 'user.create', 'user.password_reset_issue', 'role.create', 'token.create'];
    for (const action of actions) await page.getByRole('cell', { name: action, exact: true }).first().waitFor();

    const filters = page.getByRole('form', { name: 'Audit log filters' });
    await filters.getByLabel('Action').fill('role.create');
    await filters.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/[?&]action=role\.create/);
    const rows = page.getByRole('table').getByRole('row');
    await rows.nth(1).getByRole('definition').getByText('deployer', { exact: true }).waitFor();
    expect(await rows.count()).to.equal(2);
    expect(await page.getByRole('cell', { name: 'role.create', exact: true }).count()).to.equal(1);
    await capture('audit');
  });
});
