import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import type { BackupDestination, BackupDestinationPage } from '../support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { s3rverAccessKeyId, startTestS3, type TestS3 } from '../support/s3-server.js';
import { description, screenshot, signedInPage } from './support-admin.js';

/**
 * Rotate key on the Backups page, against a real Controller and a local S3 server: the Controller
 * tries the key before keeping it, so a wrong one is refused at its field with the form still open,
 * and the secret is never shown back.
 */
describe('web UI: rotating an S3 destination\'s key', function () {
  this.timeout(90_000);
  let t: TestController;
  let admin: ApiClient;
  let s3: TestS3;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  /** The bodies of the PATCH requests the page sent, to see which fields it chose to send. */
  const patches: unknown[] = [];
  const name = 'offsite';
  const firstSecret = `first-${randomBytes(12).toString('hex')}`;
  const refusedSecret = `refused-${randomBytes(12).toString('hex')}`;
  const newSecret = `new-${randomBytes(12).toString('hex')}`;
  const secrets = [firstSecret, refusedSecret, newSecret];

  before(async () => {
    s3 = await startTestS3();
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    const created = await admin.post<BackupDestination>('/backup-destinations', {
      name, kind: 'S3', endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket,
      accessKeyId: s3rverAccessKeyId, secretAccessKey: firstSecret, forcePathStyle: true,
    });
    expect(created.status, created.text).to.equal(201);
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors, adminCredentials, { timeoutMs: 15_000 }));
    page.on('request', (r) => {
      if (r.method() === 'PATCH' && r.url().includes('/api/v1/backup-destinations/')) patches.push(r.postDataJSON());
    });
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await t?.dispose();
    await s3?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `failed-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('offers Rotate key on S3 destinations only; the form opens with the current access key id and an empty secret, and Cancel closes it', async () => {
    await page.goto(`${t.baseUrl}/backups`);
    await page.getByRole('heading', { level: 1, name: 'Backups' }).waitFor();
    // The built-in CONTROLLER destination is listed (its Delete is there) but has no key to rotate.
    await page.getByRole('button', { name: 'Delete controller', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Rotate key for controller' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /^Rotate key/ }).count()).to.equal(1);

    await page.getByRole('button', { name: `Rotate key for ${name}`, exact: true }).click();
    const form = page.getByRole('form', { name: `Rotate key of ${name}`, exact: true });
    await form.waitFor();
    expect(await form.getByLabel('Access key id').inputValue()).to.equal(s3rverAccessKeyId);
    const secret = form.getByLabel('Secret access key');
    expect(await secret.inputValue()).to.equal('');
    expect(await secret.getAttribute('type')).to.equal('password');
    expect(await secret.getAttribute('autocomplete')).to.equal('new-password');
    expect(await secret.getAttribute('required')).not.to.equal(null);

    // Without a secret nothing is sent: the form says what to enter.
    await form.getByRole('button', { name: 'Save key' }).click();
    await form.getByRole('alert').filter({ hasText: 'Enter the secret access key.' }).waitFor();
    expect(patches).to.deep.equal([]);

    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
    expect(await page.getByRole('status').filter({ hasText: 'rotated' }).count()).to.equal(0);
  });

  it('a key S3 does not know is refused at Access key id with the form still open; the right one is saved, and no secret is ever shown', async () => {
    await page.getByRole('button', { name: `Rotate key for ${name}`, exact: true }).click();
    const form = page.getByRole('form', { name: `Rotate key of ${name}`, exact: true });
    const keyId = form.getByLabel('Access key id');
    const secret = form.getByLabel('Secret access key');
    await keyId.fill('NOT-A-KEY');
    await secret.fill(refusedSecret);
    await form.getByRole('button', { name: 'Save key' }).click();
    await form.getByRole('alert').filter({ hasText: 'InvalidAccessKeyId' }).waitFor();
    expect(await keyId.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(page, keyId), 'the error is the access key id\'s').to.include('InvalidAccessKeyId');
    expect(await secret.getAttribute('aria-invalid')).to.equal(null);
    expect(await keyId.inputValue(), 'what was typed stays').to.equal('NOT-A-KEY');
    expect(patches).to.deep.equal([{ accessKeyId: 'NOT-A-KEY', secretAccessKey: refusedSecret }]);
    expect(await page.locator('main').innerText()).not.to.include(refusedSecret);
    await screenshot(page, 'rotate-key-refused');

    await keyId.fill(s3rverAccessKeyId);
    await secret.fill(newSecret);
    // The list is read again once the key is saved: a GET after the second PATCH.
    const refetched = page.waitForResponse((r) => r.request().method() === 'GET' && new URL(r.url()).pathname === '/api/v1/backup-destinations' && patches.length === 2);
    await form.getByRole('button', { name: 'Save key' }).click();
    await refetched;
    await page.getByRole('status').filter({ hasText: `Key of ${name} rotated.` }).waitFor();
    await form.waitFor({ state: 'detached' });
    // The access key id is the one it had, so only the secret goes.
    expect(patches.at(-1)).to.deep.equal({ secretAccessKey: newSecret });

    const listed = (await admin.get<BackupDestinationPage>('/backup-destinations')).body.items.find((d) => d.name === name);
    expect(listed?.accessKeyId).to.equal(s3rverAccessKeyId);
    await page.getByRole('row').filter({ hasText: name }).filter({ hasText: `(key ${s3rverAccessKeyId})` }).waitFor();
    const content = await page.content();
    for (const s of secrets) expect(content, 'a secret in the page').not.to.include(s);
  });
});
