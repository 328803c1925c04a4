import { expect } from 'chai';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ServerDetail } from '../support/api-types.js';
import { zipOf, zipWithRenamedEntry } from '../support/archive-builders.js';
import { adminCredentials } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { ed25519KeyPair } from '../support/sftp-client.js';
import { waitFor } from '../support/wait-for.js';
import { unzip } from '../support/zip-contents.js';
import { desktop, expectNoSidewaysScroll, phone, screenshot, signedInPage } from './support-admin.js';

const filesIn = (page: Page, dir: string) => page.getByRole('table', { name: `Files in ${dir}` });

/**
 * Drops files on the Files tab as a desktop drag would: a DataTransfer built in the page, handed to
 * dragenter and drop events. `relative` gives a file its place in a dropped folder, as a folder's
 * files carry it (webkitRelativePath); `fill` is the byte every file is made of.
 */
const dropFiles = (page: Page, files: { name: string; size: number; relative?: string }[]) => page.evaluate(`(() => {
  const dt = new DataTransfer();
  for (const f of ${JSON.stringify(files)}) {
    const file = new File([new Uint8Array(f.size).fill(65)], f.name);
    if (f.relative) Object.defineProperty(file, 'webkitRelativePath', { value: f.relative });
    dt.items.add(file);
  }
  const zone = document.querySelector('[aria-label="Drop files here"]');
  for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
})()`);

/**
 * Issue 46's web UI against a Controller with SFTP on and a real Agent: files and a folder dragged
 * into the Files tab with their progress, Extract here of a zip (and of a hostile one, refused with
 * its reason), a folder downloaded as a zip, the SFTP block's copy buttons, and SSH keys on the
 * Security page.
 */
describe('web UI: files in bulk (drag in, extract, download as zip, SFTP, SSH keys)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  let server: ServerDetail;
  const pageErrors: string[] = [];
  const rootOf = () => join(f.agentDir, 'servers', serverId, 'root');

  before(async () => {
    f = await startFleet({ extraArgs: ['--sftp-port', '0'] });
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'bulk', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 } });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    server = await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY');
    ({ browser, page } = await signedInPage(f.t.baseUrl, pageErrors, adminCredentials, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `failed-bulk-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('files and a folder dragged in: "Uploading N files" with the bytes of all, then listed, the folder tree made', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}/files`);
    await filesIn(page, 'the server root').waitFor();
    // A slow link, so the upload lasts long enough to be seen under way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });
    const total = 2 * 1024 * 1024 + 3 + 5;
    try {
      await dropFiles(page, [
        { name: 'world.bin', size: 2 * 1024 * 1024 },
        { name: 'b.css', size: 3, relative: 'site/css/b.css' },
        { name: 'index.html', size: 5, relative: 'site/index.html' },
      ]);
      await page.getByRole('status').filter({ hasText: 'Uploading 3 files' }).waitFor();
      const bar = page.getByRole('progressbar', { name: 'Upload progress' });
      const partly = await waitFor(async () => {
        const [value, max] = await Promise.all([bar.getAttribute('value', { timeout: 1000 }), bar.getAttribute('max', { timeout: 1000 })]);
        return Number(value) > 0 && Number(value) < Number(max) ? { value, max } : undefined;
      }, { timeoutMs: 10_000, what: 'the upload partly sent' });
      expect(Number(partly.max), 'the bar counts the bytes of all the files').to.equal(total);
      await bar.waitFor({ state: 'detached', timeout: 30_000 });
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    }
    const root = filesIn(page, 'the server root');
    await root.getByRole('cell', { name: 'world.bin', exact: true }).waitFor();
    await root.getByRole('button', { name: 'site/' }).waitFor();
    expect((await stat(join(rootOf(), 'world.bin'))).size).to.equal(2 * 1024 * 1024);
    expect(await readFile(join(rootOf(), 'site/css/b.css'), 'utf8')).to.equal('AAA');
    expect(await readFile(join(rootOf(), 'site/index.html'), 'utf8')).to.equal('AAAAA');
    await root.getByRole('button', { name: 'site/' }).click();
    await filesIn(page, 'site').getByRole('button', { name: 'css/' }).waitFor();
  });

  it('Extract here unpacks a zip beside it and lists what it wrote; a zip with an entry leading out fails with the entry named', async () => {
    await writeFile(join(rootOf(), 'pack.zip'), await zipOf({ 'modpack/': '', 'modpack/config.yml': 'a: 1', 'modpack/mods/x.jar': 'jar' }));
    await writeFile(join(rootOf(), 'evil.zip'), await zipWithRenamedEntry('aa/passwd', '../passwd'));
    await page.goto(`${f.t.baseUrl}/servers/${serverId}/files`);
    const root = filesIn(page, 'the server root');
    await root.getByRole('button', { name: 'Extract pack.zip here' }).click();
    await page.getByRole('status').filter({ hasText: 'Extracted pack.zip into the server root' }).waitFor();
    await root.getByRole('button', { name: 'modpack/' }).waitFor();
    expect(await readFile(join(rootOf(), 'modpack/mods/x.jar'), 'utf8')).to.equal('jar');
    await root.getByRole('button', { name: 'modpack/' }).click();
    await filesIn(page, 'modpack').getByRole('cell', { name: 'config.yml', exact: true }).waitFor();

    await page.goto(`${f.t.baseUrl}/servers/${serverId}/files`);
    await root.getByRole('button', { name: 'Extract evil.zip here' }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'Extracting evil.zip failed.' });
    await failed.waitFor();
    expect(await failed.innerText()).to.include('../passwd');
    await stat(join(rootOf(), '..', 'passwd')).then(() => expect.fail('written outside the root'), () => undefined);
  });

  it('Download as zip saves the folder as a zip through a plain link (the session cookie goes with it)', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}/files`);
    const link = filesIn(page, 'the server root').getByRole('link', { name: 'Download site as zip' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).to.equal('site.zip');
    const entries = await unzip(await readFile(await download.path()));
    const names = Object.keys(entries).map((n) => n.replace(/^site\//, ''));
    expect(names.sort()).to.deep.equal(['css/b.css', 'index.html']);
    expect(Object.values(entries).sort()).to.deep.equal(['AAA', 'AAAAA']);
  });

  it('Compress writes a zip of a folder beside it', async () => {
    await page.goto(`${f.t.baseUrl}/servers/${serverId}/files`);
    const root = filesIn(page, 'the server root');
    await root.getByRole('button', { name: 'Compress modpack' }).click();
    await page.getByRole('status').filter({ hasText: 'Compressed into modpack.zip' }).waitFor();
    await root.getByRole('cell', { name: 'modpack.zip', exact: true }).waitFor();
    const entries = await unzip(await readFile(join(rootOf(), 'modpack.zip')));
    expect(entries).to.include({ 'modpack/mods/x.jar': 'jar' });
  });

  it('the SFTP block shows the address, username and host key fingerprint; Copy puts them on the clipboard', async () => {
    const sftp = server.sftp!;
    expect(sftp.username).to.equal(`${adminCredentials.username}.${serverId.slice(0, 8)}`);
    expect(sftp.hostKeyFingerprint).to.match(/^SHA256:/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.t.baseUrl });
    await page.goto(`${f.t.baseUrl}/servers/${serverId}/files`);
    const block = page.getByRole('region', { name: 'SFTP' });
    await block.getByText(sftp.hostKeyFingerprint, { exact: true }).waitFor();
    await block.getByText(sftp.username, { exact: true }).waitFor();
    await block.getByText(`${sftp.host}:${f.t.controller.sftpPort}`, { exact: true }).waitFor();
    const copied = async (label: string, expected: string) => {
      await block.getByRole('button', { name: `Copy ${label}` }).click();
      await block.getByRole('status').filter({ hasText: 'Copied.' }).first().waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(expected);
    };
    await copied('SFTP username', sftp.username);
    await copied('host key fingerprint', sftp.hostKeyFingerprint);
    await copied('SFTP command', `sftp -P ${f.t.controller.sftpPort} ${sftp.username}@${sftp.host}`);
    await screenshot(page, 'files-sftp-block');
    // The fingerprint and the command are long: on a phone they wrap rather than push the page sideways.
    await page.setViewportSize(phone);
    try {
      await block.getByText(sftp.hostKeyFingerprint, { exact: true }).waitFor();
      await expectNoSidewaysScroll(page);
    } finally {
      await page.setViewportSize(desktop);
    }
  });

  it('SSH keys on the Security page: a bad key refused at its field, a good one listed, then deleted after a confirmation', async () => {
    await page.goto(`${f.t.baseUrl}/security`);
    const form = page.getByRole('form', { name: 'Add SSH key' });
    await form.getByLabel('Key name').fill('laptop');
    await form.getByLabel('Public key').fill('ssh-ed25519 AAAAnotakey');
    await form.getByRole('button', { name: 'Add SSH key' }).click();
    const publicKey = form.getByLabel('Public key');
    await waitFor(async () => (await publicKey.getAttribute('aria-invalid')) === 'true', { timeoutMs: 10_000, what: 'the key refused at its field' });
    const fieldError = page.locator(`[id="${(await publicKey.getAttribute('aria-describedby'))!.split(' ').pop()!}"]`);
    expect(await fieldError.getAttribute('role')).to.equal('alert');
    expect(await fieldError.innerText()).to.not.equal('');
    const { public: key } = ed25519KeyPair();
    await publicKey.fill(key);
    await fieldError.waitFor({ state: 'detached' });
    await form.getByRole('button', { name: 'Add SSH key' }).click();
    const table = page.getByRole('table', { name: 'Your SSH keys' });
    const row = table.getByRole('row').filter({ hasText: 'laptop' });
    await row.waitFor();
    const [listed] = (await f.admin.get<{ items: { fingerprint: string }[] }>('/me/ssh-keys')).body.items;
    expect(await row.innerText()).to.include(listed.fingerprint);
    await screenshot(page, 'security-ssh-keys');
    await row.getByRole('button', { name: 'Delete laptop' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    await table.getByText('No SSH keys yet.').waitFor();
    expect((await f.admin.get<{ items: unknown[] }>('/me/ssh-keys')).body.items).to.deep.equal([]);
  });
});
