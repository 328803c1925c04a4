import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatalogFeed } from '../../src/controller/schemas/catalog-feed.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { CatalogSyncResult } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

const feedWith = (downloadUrl: string): CatalogFeed => ({
  plugins: [{
    id: 'test:reader', source: 'test', slug: 'reader', name: 'Reader', summary: 'Points at a local file', license: 'MIT', downloads: 1,
    url: 'https://example.com/reader', updated: '2024-06-01T00:00:00Z',
    versions: [{
      versionId: 'test:reader-1', version: '1.0.0', platforms: ['paper'], gameVersions: ['1.21.4'], dependencies: [],
      publishedAt: '2024-06-01T00:00:00Z', download: { url: downloadUrl, sha256: 'b'.repeat(64), size: 100 },
    }],
  }],
  denylist: [],
});

describe('a remote catalog feed cannot point downloads at the Controller\'s own files', function () {
  this.timeout(30_000);
  let feed: CatalogFeed;
  let http: Server;
  let t: TestController;
  let admin: ApiClient;

  before(async () => {
    feed = feedWith('https://example.com/reader.jar');
    http = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(feed)));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const source = `http://127.0.0.1:${(http.address() as AddressInfo).port}/feed.json`;
    t = await startTestController({ extraArgs: ['--catalog-source', source] });
    admin = (await setupAdmin(t)).admin;
  });
  after(async () => {
    await t.dispose();
    await new Promise((resolve) => http.close(resolve));
  });

  it('a file: download in a feed fetched over HTTP fails the sync and keeps the last good catalog', async () => {
    expect((await admin.post<CatalogSyncResult>('/catalog/sync')).body).to.include({ pluginCount: 1 });
    feed = feedWith('file:///etc/shadow');
    expectProblem(await admin.post('/catalog/sync'), 502, 'catalog_sync_failed', 'file: download URL');
    const kept = await admin.get<{ versions: { download?: unknown }[] }>(`/catalog/plugins/${encodeURIComponent('test:reader')}`);
    expect(kept.status, kept.text).to.equal(200);
    expect(JSON.stringify(kept.body)).to.not.contain('/etc/shadow');
  });
});
