import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { problemField } from '../../src/web/src/api/problem-field.js';
import { adminCredentials, networkInput, startTestController, type TestController } from '../support/controller.js';

const html = '<!doctype html><html><head><script type="module" src="/assets/app-3f2a1b.js"></script></head><body><div id="root"></div></body></html>\n';
const script = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;

const problemOf = async (res: Response) => {
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  return (await res.json()) as { code: string; detail?: string };
};

describe('web UI serving: the app at every path outside the API, hashed assets cached, HTML never', () => {
  let t: TestController;
  let webDir: string;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}${path}`, { headers });

  before(async () => {
    webDir = await mkdtemp(join(tmpdir(), 'cairn-web-'));
    await mkdir(join(webDir, 'assets'));
    await writeFile(join(webDir, 'index.html'), html);
    await writeFile(join(webDir, 'assets', 'app-3f2a1b.js'), script);
    await writeFile(join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await startTestController({ extraArgs: ['--web-dir', webDir] });
  });
  after(async () => {
    await t.dispose();
    await rm(webDir, { recursive: true, force: true });
  });

  it('answers the app\'s HTML at / and at client-side routes, never cached, with a CSP that allows no inline script', async () => {
    for (const path of ['/', '/servers', '/servers/0190b6c2-1111-7000-8000-000000000000/files', '/reset-password?token=abc']) {
      const res = await get(path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'self'").and.include("script-src 'self'").and.include("frame-ancestors 'none'");
      expect(csp).to.not.match(/script-src[^;]*('unsafe-inline'|'unsafe-eval'|https?:)/);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(await res.text()).to.equal(html);
    }
  });

  it('serves hashed assets for a year, immutable, compressed when the client accepts it', async () => {
    const res = await get('/assets/app-3f2a1b.js', { 'accept-encoding': 'gzip' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).to.match(/javascript/);
    expect(res.headers.get('content-encoding')).to.equal('gzip');
    expect(await res.text()).to.equal(script);
    const plain = await get('/favicon.svg');
    expect(plain.headers.get('cache-control')).to.equal('no-cache');
  });

  it('a missing asset is a 404 problem, not the app (a stale page must not run HTML as script)', async () => {
    const res = await get('/assets/app-000000.js');
    expect(res.status).to.equal(404);
    expect((await problemOf(res)).code).to.equal('not_found');
  });

  it('leaves /api/, /healthz, /readyz and /metrics to the Controller: unknown API paths stay JSON problems', async () => {
    const unknown = await get('/api/v1/no-such-thing');
    expect(unknown.status).to.equal(404);
    expect((await problemOf(unknown)).code).to.equal('not_found');
    expect((await get('/api')).status).to.equal(404);
    expect(await (await get('/healthz')).json()).to.deep.equal({ status: 'ok' });
    expect((await get('/metrics')).headers.get('content-type')).to.match(/^text\/plain/);
    const post = await fetch(`${t.baseUrl}/servers`, { method: 'POST' });
    expect(post.headers.get('content-type')).to.not.match(/html/);
  });

  it('names the request field in the detail the way the UI maps it next to its control', async () => {
    const code = (await readFile(join(t.dataDir, 'setup-code'), 'utf8')).trim();
    const res = await fetch(`${t.baseUrl}/api/v1/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ setupCode: code, ...adminCredentials, network: { ...networkInput, port: 70000 } }),
    });
    expect(problemField((await problemOf(res)).detail)).to.equal('network.port');
  });

  it('says how to build the UI when it is missing', async () => {
    const empty = await startTestController({ extraArgs: ['--web-dir', join(webDir, 'nothing-here')] });
    try {
      const res = await fetch(`${empty.baseUrl}/servers`);
      expect(res.status).to.equal(404);
      expect((await problemOf(res)).detail).to.include('npm run build');
    } finally {
      await empty.dispose();
    }
  });
});
