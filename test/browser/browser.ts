import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { defaultWebDir } from '../../src/controller/http/web-ui.js';

/** Debian's chromium; `.ci/run` installs it when missing. playwright-core never downloads a browser. */
export const chromiumPath = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots of every page the flow visits; docs/web-ui.md and docs/testing.md name this folder. */
export const screenshotDir = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

const exists = (path: string) => access(path).then(() => true, () => false);

/** Fails with a message that says what to do, rather than a timeout, when something is missing. */
export async function checkPrerequisites(): Promise<void> {
  if (!(await exists(join(defaultWebDir(), 'index.html')))) {
    throw new Error(`The web UI is not built (${defaultWebDir()}/index.html is missing): run \`npm run build\` first (\`npm test\` does).`);
  }
  if (!(await exists(chromiumPath))) {
    throw new Error(`No Chromium at ${chromiumPath}: install it with \`apt-get install -y chromium\` (.ci/run does) or set CAIRN_CHROMIUM.`);
  }
}

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile directory and one page at the given size. */
export async function launchBrowser(baseURL: string, viewport = { width: 1280, height: 900 }): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'cairn-chromium-'));
  // A persistent context is how playwright takes a profile directory (--user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    baseURL, viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context, page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page PNG as test-results/screenshots/<name>.png. */
export async function shoot(page: Page, name: string): Promise<void> {
  await mkdir(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/**
 * Waits for the page of a server just created from the New server form; when it does not come,
 * the error says what the page showed instead (an alert from the API, the form as it stood).
 */
export async function waitForServerPage(page: Page, name: string, timeout?: number): Promise<void> {
  try {
    await page.getByRole('heading', { level: 1, name, exact: true }).waitFor({ timeout });
  } catch (error) {
    const alerts = await page.getByRole('alert').allInnerTexts().catch(() => []);
    const shown = (await page.locator('main').innerText().catch(() => '')).slice(0, 1200);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nat ${page.url()}; alerts: ${JSON.stringify(alerts)}; the page showed: ${shown}`, { cause: error });
  }
}

/**
 * The description of one fact (`<dt>term</dt><dd>…</dd>`) on a page or in a card. Match a state in
 * it with `getByText('RUNNING', { exact: true })`: its plain words can hold the value in lower case
 * ("the game is not running"), which a `hasText` filter would take for it.
 */
export const fact = (scope: Page | Locator, term: string): Locator => scope.locator(`dt:text-is("${term}") + dd`);
