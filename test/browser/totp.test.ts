import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { adminCredentials, createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { User } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { desktop, expectNoSidewaysScroll, openSection, phone, screenshot, signedInPage, signIn } from './support-admin.js';

/**
 * Two-factor authentication in a real browser: a user enrols from the Security page (the code is
 * computed from the secret the page shows, as an authenticator app would), signs out, and signs in
 * again with a code; an administrator then resets it from the users page.
 */
describe('web UI: two-factor authentication (TOTP)', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let userId: string;
  let browser: Browser;
  let page: Page;
  let secret: string;
  const pageErrors: string[] = [];
  const code = () => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: t.clock.now().getTime() });

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    ({ userId } = await createReadyUser(t, admin, 'hana'));
    ({ browser, page } = await signedInPage(t.baseUrl, pageErrors, { username: 'hana', password: 'second-password-2' }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('enrols from the Security page: a QR code, the secret as text, a code to confirm, then the recovery codes once', async () => {
    await openSection(page, 'Security', 'Security');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const qr = page.getByRole('img', { name: 'QR code' });
    await qr.waitFor();
    expect(Number(await qr.getAttribute('width'))).to.be.greaterThan(100);
    secret = await page.getByLabel('Secret').inputValue();
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    expect(await page.getByLabel('Setup link').inputValue()).to.match(/^otpauth:\/\/totp\/Cairn:hana\?/).and.include(`secret=${secret}`);
    await screenshot(page, 'totp-setup');
    await page.getByLabel('Code from the app').fill(code());
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    // The current password is asked for, under its field.
    await page.getByRole('alert').filter({ hasText: 'current password is needed' }).waitFor();
    expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Current password').fill('second-password-2');
    await page.getByLabel('Code from the app').fill(code() === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    // The API's refusal is shown under the field it names.
    await page.getByRole('alert').filter({ hasText: 'Enter the 6-digit code' }).waitFor();
    expect(await page.getByLabel('Code from the app').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Code from the app').fill(code());
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    const shown = page.getByRole('region', { name: 'Your recovery codes' });
    await shown.waitFor();
    const recoveryCodes = (await shown.getByLabel('Recovery codes').inputValue()).split('\n');
    expect(recoveryCodes).to.have.length(10);
    await page.setViewportSize(phone);
    await expectNoSidewaysScroll(page);
    await page.setViewportSize(desktop);
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('heading', { name: 'Turn it off' }).waitFor();
    expect((await admin.get<User>(`/users/${userId}`)).body.totpEnabled).to.equal(true);
  });

  it('signs out, then signs in with the password and an authentication code', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username or email').fill('hana');
    await page.getByLabel('Password').fill('second-password-2');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const field = page.getByLabel('Authentication code');
    await field.waitFor();
    await field.fill('not-a-code');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The code is wrong or expired' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'username or password' }).count()).to.equal(0);
    // The code that confirmed is used up: the next step's code is what an app shows 30 s later.
    t.clock.advance(30_000);
    await field.fill(code());
    await screenshot(page, 'totp-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('an administrator resets it from the users page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, t.baseUrl, adminCredentials.username, adminCredentials.password);
    await openSection(page, 'Users', 'Users');
    await page.getByRole('button', { name: 'Reset two-factor of hana' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reset two-factor' }).click();
    await page.getByRole('button', { name: 'Reset two-factor of hana' }).waitFor({ state: 'detached' });
    expect((await admin.get<User>(`/users/${userId}`)).body.totpEnabled).to.equal(false);
  });
});
