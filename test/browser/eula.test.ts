import { expect } from 'chai';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { AuditEventPage, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { signedInPage } from './support-admin.js';

/**
 * A template that needs Mojang's EULA (simcraft declared so, in a templates dir of the test's
 * own): the first Start asks; Cancel starts nothing; Accept and start writes eula.txt (audited)
 * and starts; a later Start does not ask again.
 */
describe('web UI: the Minecraft EULA on first start', function () {
  this.timeout(90_000);
  let f: Fleet;
  let templatesDir: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    templatesDir = await mkdtemp(join(tmpdir(), 'cairn-eula-templates-'));
    await copyFile('templates/simcraft.json', join(templatesDir, 'simcraft.json'));
    const needsEula = { ...JSON.parse(await readFile('templates/simcraft.json', 'utf8')) as object, id: 'simcraft-eula', name: 'Simcraft (needs the EULA)', eula: true };
    await writeFile(join(templatesDir, 'simcraft-eula.json'), JSON.stringify(needsEula));
    f = await startFleet({ extraArgs: ['--templates-dir', templatesDir] });
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await f?.dispose();
    await rm(templatesDir, { recursive: true, force: true });
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('asks before the first start, writes eula=true on accept (audited) and starts; never asks again', async () => {
    const res = await f.admin.post<ServerDetail>('/servers', { name: 'survival', teamId: f.teamId, software: { template: 'simcraft-eula', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: f.nodeId });
    expect(res.status, res.text).to.equal(201);
    const id = res.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'survival READY');
    await page.goto(`${f.t.baseUrl}/servers/${id}`);
    const start = page.getByRole('group', { name: 'Power' }).getByRole('button', { name: 'Start', exact: true });

    await start.click();
    const dialog = page.getByRole('dialog', { name: 'Accept the Minecraft EULA' });
    await dialog.waitFor();
    expect(await dialog.getByRole('link', { name: 'Minecraft End User License Agreement' }).getAttribute('href')).to.equal('https://aka.ms/MinecraftEULA');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await f.admin.get<ServerDetail>(`/servers/${id}`)).body.desiredState, 'Cancel starts nothing').to.equal('STOPPED');
    expect((await f.admin.get(`/servers/${id}/files/content?path=eula.txt`)).status, 'nor writes the file').to.equal(404);

    await start.click();
    await dialog.getByRole('button', { name: 'Accept and start' }).click();
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING', 'survival RUNNING');
    expect((await f.admin.get(`/servers/${id}/files/content?path=eula.txt`)).text).to.match(/^eula=true$/m);
    const audit = await f.admin.get<AuditEventPage>(`/audit-events?action=server.file.write&targetId=${id}`);
    expect(audit.body.items.map((e) => e.details.path)).to.deep.equal(['eula.txt']);

    expect((await f.admin.post(`/servers/${id}/stop`)).status).to.equal(202);
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED', 'survival STOPPED');
    await start.click();
    await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'RUNNING', 'survival RUNNING again');
    expect(await dialog.isVisible(), 'accepted once is accepted').to.equal(false);
  });
});
