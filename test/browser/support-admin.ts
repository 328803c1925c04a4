import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { adminCredentials } from '../support/controller.js';

/** Debian's chromium; playwright's own browsers are never downloaded. */
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });

export const desktop = { width: 1280, height: 900 };
export const phone = { width: 390, height: 844 };

const screenshotDir = join(process.cwd(), 'test-results', 'screenshots');

/** Full-page screenshots for a person to look at (test-results/ is not committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Signs in through the sign-in page, as a person does, and waits for the signed-in frame. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Opens a section through the main navigation (or the account links) and waits for its heading. */
export async function openSection(page: Page, link: string, heading: string): Promise<void> {
  await page.getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The text of the elements an input's aria-describedby names: its hint and the error under it. */
export async function description(page: Page, input: Locator): Promise<string> {
  const ids = (await input.getAttribute('aria-describedby'))?.split(' ') ?? [];
  // useId's ids hold characters a CSS #id selector would need escaped; an attribute selector takes them as they are.
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ');
}

/** On a narrow screen nothing may push the page sideways; wide tables scroll inside their own box. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  // A string, evaluated in the page: the test's TypeScript has no DOM types.
  const { scrollWidth, clientWidth } = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
  );
  expect(scrollWidth, 'page width on a phone').to.be.at.most(clientWidth);
}

/**
 * Chromium with one page (desktop unless told) that records uncaught page errors in `pageErrors`,
 * signed in through the sign-in page as `who` (the administrator unless told).
 */
export async function signedInPage(
  baseUrl: string, pageErrors: string[], who: { username: string; password: string } = adminCredentials,
  options: { viewport?: { width: number; height: number }; timeoutMs?: number } = {},
): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: options.viewport ?? desktop });
  if (options.timeoutMs !== undefined) page.setDefaultTimeout(options.timeoutMs);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, baseUrl, who.username, who.password);
  return { browser, page };
}
