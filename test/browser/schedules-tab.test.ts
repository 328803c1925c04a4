import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type * as schedules from '../../src/controller/schemas/schedules.js';
import type { PageOf, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';
import { desktop, expectNoSidewaysScroll, phone, screenshot, signedInPage } from './support-admin.js';

type SchedulePage = PageOf<typeof schedules.Schedule>;

/** The hour and minute a time has in `timeZone`, read by the runtime's own Intl, not by the page's cron library. */
const wallClock = (iso: string, timeZone: string) =>
  new Date(iso).toLocaleTimeString('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/**
 * The Schedules tab of the server page against a Controller with a real Agent running simcraft:
 * the New schedule form's cron field in words and times, the API's problem under the field it
 * names, a restart warned ahead created and run now with each task's result, then disabled and deleted.
 */
describe('web UI: the server page\'s Schedules tab', function () {
  this.timeout(120_000);
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  let pump: NodeJS.Timeout | undefined;
  const pageErrors: string[] = [];
  const listed = async () => (await f.admin.get<SchedulePage>(`/servers/${serverId}/schedules`)).body.items;
  const form = () => page.getByRole('form', { name: 'New schedule' });
  const task = (n: number) => form().getByRole('group', { name: `Task ${n}`, exact: true });

  before(async () => {
    f = await startFleet();
    // The test clock runs at real time; its timers (a restart's warnings) fire as time passes, as the process's would.
    pump = setInterval(() => f.t.clock.advance(0), 20);
    const created = await f.admin.post<ServerDetail>('/servers', {
      name: 'survival', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING', 30_000);
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors, undefined, { timeoutMs: 15_000 }));
  });

  after(async () => {
    clearInterval(pump);
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `failed-schedules-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('is a tab of the server page with no schedules yet and the New schedule form', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}`);
    await page.getByRole('tab', { name: 'Schedules' }).click();
    expect(page.url()).to.match(/\/schedules$/);
    await page.getByRole('heading', { level: 2, name: 'Schedules', exact: true }).waitFor();
    await page.getByText('No schedules: nothing runs on a clock.').waitFor();
    await form().waitFor();
    expect(await form().getByLabel('Timezone').inputValue()).to.equal('UTC');
  });

  it('an invalid cron is refused by the API, its problem shown under the Cron field and nothing created', async () => {
    await form().getByLabel('Name').fill('broken');
    const cron = form().getByLabel('Cron');
    await cron.fill('0 25 * * *');
    await form().getByText('This does not read as a schedule yet.').waitFor();
    await form().getByRole('button', { name: 'Create schedule' }).click();
    await waitFor(async () => (await cron.getAttribute('aria-invalid')) === 'true', { timeoutMs: 10_000, what: 'the Cron field marked invalid' });
    const errorId = (await cron.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'));
    expect(errorId, 'the field is described by its error').to.be.a('string');
    expect(await page.locator(`[id="${errorId}"]`).textContent()).to.match(/\S/);
    expect(await listed()).to.deep.equal([]);
  });

  it('a valid cron is said in words, with its next five runs in the chosen timezone', async () => {
    await form().getByLabel('Timezone').selectOption('Europe/Berlin');
    await form().getByLabel('Cron').fill('0 4 * * *');
    await form().getByText('At 04:00 (Europe/Berlin).').waitFor();
    const times = form().getByRole('list', { name: 'Next five runs' }).locator('time');
    expect(await times.count()).to.equal(5);
    const instants = await Promise.all((await times.all()).map(async (t) => (await t.getAttribute('datetime')) ?? ''));
    expect(instants.map((iso) => wallClock(iso, 'Europe/Berlin'))).to.deep.equal(Array(5).fill('04:00'));
    const gaps = instants.slice(1).map((iso, i) => (Date.parse(iso) - Date.parse(instants[i])) / 3_600_000);
    for (const hours of gaps) expect(hours, 'one day apart (23 or 25 hours over a summer-time change)').to.be.oneOf([23, 24, 25]);
    expect(Date.parse(instants[0])).to.be.greaterThan(Date.now());
  });

  it('the API\'s problem about a task is shown under that task\'s field (body.tasks[0].command)', async () => {
    await form().getByLabel('Name').fill('speechless');
    await task(1).getByLabel('Action').selectOption({ label: 'Send a console command' });
    const command = task(1).getByLabel('Command');
    await form().getByRole('button', { name: 'Create schedule' }).click();
    await waitFor(async () => (await command.getAttribute('aria-invalid')) === 'true', { timeoutMs: 10_000, what: 'the Command field marked invalid' });
    expect(await form().getByLabel('Cron').getAttribute('aria-invalid'), 'only the field the problem names').to.equal(null);
    expect(await listed()).to.deep.equal([]);
  });

  it('creates a schedule whose tasks are a console command and a restart warned ahead, in the order shown', async () => {
    await form().getByLabel('Name').fill('nightly');
    await task(1).getByLabel('Action').selectOption({ label: 'Restart the server' });
    await task(1).getByLabel('Warnings (seconds before the stop)').fill('2,1');
    await form().getByRole('button', { name: 'Add task' }).click();
    await task(2).getByLabel('Action').selectOption({ label: 'Send a console command' });
    await task(2).getByLabel('Command').fill('say the schedule says hello');
    await task(2).getByRole('button', { name: 'Move up Task 2' }).click();
    expect(await task(1).getByLabel('Command').inputValue(), 'the command is now the first task').to.equal('say the schedule says hello');
    await screenshot(page, 'schedules-new-form');
    await form().getByRole('button', { name: 'Create schedule' }).click();
    await form().getByRole('status').filter({ hasText: 'Schedule nightly created: next run' }).waitFor();

    const [created] = await listed();
    expect(created).to.include({ name: 'nightly', cron: '0 4 * * *', timezone: 'Europe/Berlin', enabled: true, onlyWhenRunning: false });
    expect(created.tasks.map((t) => t.action)).to.deep.equal(['command', 'restart']);
    expect(created.tasks[0].command).to.equal('say the schedule says hello');
    expect(created.tasks[1].warnSeconds).to.deep.equal([2, 1]);
    const row = page.getByRole('row').filter({ hasText: 'nightly' });
    await row.getByText('0 4 * * *').waitFor();
    await row.getByText('Europe/Berlin').waitFor();
    await row.getByText(/, 04:00$/).waitFor();
    await row.getByText('not run yet').waitFor();
    expect(await form().getByLabel('Name').inputValue(), 'the form is emptied').to.equal('');
  });

  it('Run now shows the run with each task\'s result, and the server restarted', async () => {
    const before = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body.status.startedAt;
    const row = page.getByRole('row').filter({ hasText: 'nightly' });
    await row.getByRole('button', { name: 'Run now nightly' }).click();
    const runs = page.getByRole('region', { name: 'Runs of nightly' });
    await runs.waitFor();
    const run = runs.getByRole('row').filter({ hasText: 'SUCCEEDED' }).filter({ hasText: 'restart' });
    await run.waitFor({ timeout: 60_000 });
    await run.getByText('command:').waitFor();
    // Each task's line is its action and result, then the detail the Controller gave, if any.
    const lines = await run.locator('li').allTextContents();
    expect(lines.map((l) => l.split(' — ')[0])).to.deep.equal(['command: SUCCEEDED', 'restart: SUCCEEDED']);
    await row.getByText('SUCCEEDED').waitFor();
    const after = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body.status.startedAt;
    expect(after, 'the restart started the game anew').to.be.a('string').and.not.equal(before);
    await screenshot(page, 'schedules-run-now');
  });

  it('on a phone the tab never pushes the page sideways: the table scrolls in its own box', async () => {
    await page.setViewportSize(phone);
    await page.getByRole('row').filter({ hasText: 'nightly' }).waitFor();
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'schedules-phone');
    await page.setViewportSize(desktop);
  });

  it('Edit: the New form\'s controls filled in; a refused cron shown at its field; Save changes cron, timezone, switches and tasks; Cancel changes nothing', async () => {
    const row = page.getByRole('row').filter({ hasText: 'nightly' });
    await row.getByRole('button', { name: 'Edit nightly' }).click();
    const edit = page.getByRole('form', { name: 'Edit schedule nightly' });
    const editTask = (n: number) => edit.getByRole('group', { name: `Task ${n}`, exact: true });
    const cron = edit.getByLabel('Cron');
    expect(await edit.getByLabel('Name').inputValue()).to.equal('nightly');
    expect(await cron.inputValue()).to.equal('0 4 * * *');
    expect(await edit.getByLabel('Timezone').inputValue()).to.equal('Europe/Berlin');
    expect(await edit.getByLabel('Enabled').isChecked()).to.equal(true);
    expect(await editTask(1).getByLabel('Command').inputValue()).to.equal('say the schedule says hello');
    expect(await editTask(2).getByLabel('Warnings (seconds before the stop)').inputValue()).to.equal('2,1');
    await edit.getByText('At 04:00 (Europe/Berlin).').waitFor();

    await cron.fill('0 4 * *');
    await edit.getByText('This does not read as a schedule yet.').waitFor();
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await waitFor(async () => (await cron.getAttribute('aria-invalid')) === 'true', { timeoutMs: 10_000, what: 'the Cron field marked invalid' });
    expect((await listed())[0].cron, 'nothing changed').to.equal('0 4 * * *');

    await edit.getByLabel('Timezone').selectOption('UTC');
    await cron.fill('30 5 * * 1');
    const times = edit.getByRole('list', { name: 'Next five runs' }).locator('time');
    await waitFor(async () => (await times.count()) === 5, { what: 'the next five runs of the new cron' });
    const instants = await Promise.all((await times.all()).map(async (t) => (await t.getAttribute('datetime')) ?? ''));
    for (const iso of instants) expect([new Date(iso).getUTCDay(), wallClock(iso, 'UTC')]).to.deep.equal([1, '05:30']);
    await edit.getByLabel('Only when running').check();
    await editTask(1).getByRole('button', { name: 'Remove Task 1' }).click();
    await editTask(1).getByLabel('Warnings (seconds before the stop)').fill('5');
    await screenshot(page, 'schedules-edit-form');
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Schedule nightly saved.' }).waitFor();
    expect(await edit.count(), 'the form closes').to.equal(0);
    const [saved] = await listed();
    expect(saved).to.include({ name: 'nightly', cron: '30 5 * * 1', timezone: 'UTC', enabled: true, onlyWhenRunning: true });
    expect(saved.tasks).to.deep.equal([{ action: 'restart', warnSeconds: [5] }]);
    expect(new Date(saved.nextRunAt!).getUTCDay()).to.equal(1);
    await row.getByText('30 5 * * 1').waitFor();

    await row.getByRole('button', { name: 'Edit nightly' }).click();
    await edit.getByLabel('Name').fill('renamed');
    await edit.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(await edit.count()).to.equal(0);
    expect((await listed())[0].name).to.equal('nightly');
  });

  it('Disable stops its clock; Delete asks first, then the schedule is gone', async () => {
    const row = page.getByRole('row').filter({ hasText: 'nightly' });
    await row.getByRole('button', { name: 'Disable nightly' }).click();
    await row.getByRole('button', { name: 'Enable nightly' }).waitFor();
    await row.getByText('disabled', { exact: true }).waitFor();
    expect((await listed())[0].enabled).to.equal(false);
    await row.getByRole('button', { name: 'Delete nightly' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the schedule nightly?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No schedules: nothing runs on a clock.').waitFor();
    expect(await listed()).to.deep.equal([]);
  });
});
