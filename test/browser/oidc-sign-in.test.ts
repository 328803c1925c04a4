import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { OidcSetting, User, UserPage } from '../support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { desktop, launchChromium, openSection, screenshot, signIn } from './support-admin.js';

/**
 * Single sign-on in Chromium: an administrator sets the provider up on the Single sign-on page,
 * then a user signs in through the button and the provider's own login and consent pages.
 */
describe('web UI: single sign-on with an OpenID provider', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let op: TestOidcProvider;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    op = await startOidcProvider([`${t.baseUrl}/api/v1/auth/oidc/callback`]);
    op.users.set('sub-dana', { sub: 'sub-dana', preferred_username: 'dana', name: 'Dana Doe', email: 'dana@corp.example', groups: ['cairn-admins'] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: desktop });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  after(async () => {
    await browser.close();
    await op.close();
    await t.dispose();
  });
  afterEach(() => expect(pageErrors).to.deep.equal([]));

  it('an administrator sets the provider up in one form; the secret is never shown back', async () => {
    await signIn(page, t.baseUrl, adminCredentials.username, adminCredentials.password);
    await openSection(page, 'Single sign-on', 'Single sign-on');
    await page.getByText('Single sign-on is not set up').waitFor();
    await page.getByLabel('Issuer').fill(op.issuer);
    await page.getByLabel('Client ID').fill(op.clientId);
    await page.getByLabel('Client secret').fill(op.clientSecret);
    await page.getByLabel('Display name').fill('Example SSO');
    await page.getByLabel('Administrator groups').fill('cairn-admins');
    await page.getByRole('button', { name: 'Save single sign-on' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await screenshot(page, 'sso-settings');
    const saved = await admin.get<OidcSetting>('/auth/oidc');
    expect(saved.body).to.include({ issuer: op.issuer, clientId: op.clientId, displayName: 'Example SSO', allowPasswordLogin: true });
    expect(saved.body.adminGroups).to.deep.equal(['cairn-admins']);
    expect(await page.content()).not.to.include(op.clientSecret);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
  });

  it('signs a user in through the provider\'s pages and lands signed in', async () => {
    await page.goto(`${t.baseUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
    await page.locator('input[name="login"]').fill('sub-dana');
    await page.locator('input[name="password"]').fill('any-password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/servers');
    await page.getByRole('link', { name: 'Dana Doe' }).waitFor();
    await screenshot(page, 'sso-signed-in');
    const dana = (await admin.get<UserPage>('/users?limit=200')).body.items.find((u: User) => u.username === 'dana');
    expect(dana).to.include({ displayName: 'Dana Doe', globalAdmin: true });
  });

  it('says what a failed single sign-on means', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.goto(`${t.baseUrl}/api/v1/auth/oidc/callback?code=forged&state=forged`);
    await page.waitForURL(/\/sign-in\?error=oidc_state/);
    await page.getByRole('alert').filter({ hasText: 'could not be matched to a sign-in started in this browser' }).waitFor();
    await screenshot(page, 'sso-error');
  });
});
