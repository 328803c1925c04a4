import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CatalogFeed, FeedPlugin } from '../../src/controller/schemas/catalog-feed.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, CatalogPluginDetail, CatalogPluginPage, CatalogSyncResult, TeamPage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { allPages, expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

function feedPlugin(i: number, downloads: number, extra: Partial<FeedPlugin> = {}): FeedPlugin {
  const id = `test:p${String(i).padStart(3, '0')}`;
  return {
    id, source: 'test', slug: `p${i}`, name: `Plugin ${i}`, summary: i % 10 === 0 ? 'An Economy helper' : 'Does things', license: 'MIT', downloads,
    url: `https://example.com/${id}`, updated: '2024-06-01T00:00:00Z',
    versions: [{
      versionId: `${id}-1`, version: '1.0.0', platforms: i % 3 === 0 ? ['velocity'] : ['paper'], gameVersions: i % 3 === 0 ? ['3.4.0'] : ['1.21.4'],
      dependencies: [], publishedAt: '2024-06-01T00:00:00Z', download: { url: `https://example.com/${id}.jar`, sha256: 'b'.repeat(64), size: 100 },
    }],
    ...extra,
  };
}

describe('catalog API: sync, search, filters, order, paging', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let user: ApiClient;
  let dir: string;
  let feedPath: string;
  // 120 plugins; downloads repeat so ties must be broken by id.
  const feed: CatalogFeed = { plugins: Array.from({ length: 120 }, (_, i) => feedPlugin(i, 1000 - (i % 40))), denylist: [{ pluginId: 'test:p001', version: '1.0.0', reason: 'bad build' }] };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-feed-'));
    feedPath = join(dir, 'feed.json');
    await writeFile(feedPath, JSON.stringify(feed));
    t = await startTestController({ extraArgs: ['--catalog-source', feedPath] });
    admin = (await setupAdmin(t)).admin;
    user = (await createReadyUser(t, admin, 'reader')).client;
    // On a shared store (CAIRN_TEST_MONGODB=1) the first sync is a fleet-wide job, written after the Controller listens.
    await waitFor(async () => (await user.get<CatalogPluginPage>('/catalog/plugins?limit=200')).body.items.length === feed.plugins.length, { what: 'the first catalog sync' });
  });
  after(async () => {
    await t.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('any signed-in user lists the catalog, most downloaded first, ties by id; anonymous callers are refused', async () => {
    expectProblem(await t.api.get('/catalog/plugins'), 401, 'unauthenticated');
    const res = await user.get<CatalogPluginPage>('/catalog/plugins');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.items).to.have.length(50);
    expect(res.body.nextCursor).to.be.a('string');
    expect(Object.keys(res.body.items[0]).sort()).to.deep.equal(['downloads', 'id', 'license', 'name', 'slug', 'source', 'summary', 'updated', 'url']);
    const all = await allPages((cursor) => user.get<CatalogPluginPage>(`/catalog/plugins?limit=7${cursor ? `&cursor=${cursor}` : ''}`));
    expect(all).to.have.length(120);
    const expected = [...feed.plugins].sort((a, b) => b.downloads - a.downloads || (a.id < b.id ? -1 : 1)).map((p) => p.id);
    expect(all.map((p) => p.id)).to.deep.equal(expected);
  });

  it('limit bounds 1..200 and a foreign cursor are invalid_request', async () => {
    expectProblem(await user.get<CatalogPluginPage>('/catalog/plugins?limit=0'), 400, 'invalid_request');
    expectProblem(await user.get<CatalogPluginPage>('/catalog/plugins?limit=201'), 400, 'invalid_request');
    expect((await user.get<CatalogPluginPage>('/catalog/plugins?limit=200')).body.items).to.have.length(120);
    expectProblem(await user.get<CatalogPluginPage>(`/catalog/plugins?cursor=${'x'.repeat(201)}`), 400, 'invalid_request');
    const otherList = (await admin.get<TeamPage>('/teams?limit=1')).body.nextCursor ?? Buffer.from(JSON.stringify({ v: 1, k: 5 })).toString('base64url');
    expectProblem(await user.get<CatalogPluginPage>(`/catalog/plugins?cursor=${otherList}`), 400, 'invalid_request');
  });

  it('search covers name, slug and summary case-insensitively; platform and gameVersion filter by versions', async () => {
    const economy = (await user.get<CatalogPluginPage>('/catalog/plugins?search=ECONOMY&limit=200')).body.items;
    expect(economy.map((p) => p.id).sort()).to.deep.equal(feed.plugins.filter((_, i) => i % 10 === 0).map((p) => p.id).sort());
    expect((await user.get<CatalogPluginPage>('/catalog/plugins?search=p17')).body.items.map((p) => p.id)).to.deep.equal(['test:p017']);
    const velocity = await allPages((c) => user.get<CatalogPluginPage>(`/catalog/plugins?platform=velocity&limit=200${c ? `&cursor=${c}` : ''}`));
    expect(velocity).to.have.length(40);
    expect((await user.get<CatalogPluginPage>('/catalog/plugins?platform=paper&gameVersion=3.4.0')).body.items).to.deep.equal([]);
    expect((await user.get<CatalogPluginPage>('/catalog/plugins?gameVersion=1.21.4&limit=200')).body.items).to.have.length(80);
  });

  it('detail has the versions with denied set; unknown ids are not_found', async () => {
    const res = await user.get<CatalogPluginDetail>(`/catalog/plugins/${encodeURIComponent('test:p001')}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.versions).to.deep.equal([{
      versionId: 'test:p001-1', version: '1.0.0', platforms: ['paper'], gameVersions: ['1.21.4'], dependencies: [], publishedAt: '2024-06-01T00:00:00Z',
      denied: { reason: 'bad build' },
    }]);
    expectProblem(await user.get(`/catalog/plugins/${encodeURIComponent('test:nope')}`), 404, 'not_found');
  });

  it('POST /catalog/sync: global administrators only, audited; a broken feed keeps the last good catalog', async () => {
    expectProblem(await user.post('/catalog/sync'), 403, 'forbidden');
    const same = await admin.post<CatalogSyncResult>('/catalog/sync');
    expect(same.status, same.text).to.equal(200);
    expect(same.body).to.include({ source: feedPath, pluginCount: 120, denylistCount: 1, changed: false });

    await writeFile(feedPath, JSON.stringify({ plugins: [feedPlugin(1, 5, { id: 'wrong:p1' })], denylist: [] }));
    expectProblem(await admin.post('/catalog/sync'), 502, 'catalog_sync_failed', 'does not start with its source');
    await writeFile(feedPath, '{"plugins": [');
    expectProblem(await admin.post('/catalog/sync'), 502, 'catalog_sync_failed', 'not valid JSON');
    expect((await user.get<CatalogPluginPage>('/catalog/plugins?limit=200')).body.items).to.have.length(120);

    await writeFile(feedPath, JSON.stringify({ plugins: feed.plugins.slice(0, 3), denylist: [] }));
    const changed = await admin.post<CatalogSyncResult>('/catalog/sync');
    expect(changed.body).to.include({ pluginCount: 3, denylistCount: 0, changed: true });
    expect((await user.get<CatalogPluginDetail>(`/catalog/plugins/${encodeURIComponent('test:p001')}`)).body.versions[0].denied).to.equal(undefined);
    const audit = await admin.get<AuditEventPage>('/audit-events?action=catalog.sync');
    expect(audit.body.items.map((e) => e.outcome)).to.include.members(['SUCCESS', 'FAILED', 'DENIED']);
  });

  it('the last good catalog survives a restart with a broken source', async () => {
    await writeFile(feedPath, 'not json');
    t = await t.restart();
    const login = await t.api.post('/auth/login', { username: 'admin', password: 'correct-horse-battery' });
    const again = t.api.withCookie(/(__Host-cairn_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]);
    expect((await again.get<CatalogPluginPage>('/catalog/plugins')).body.items.map((p) => p.id)).to.deep.equal(['test:p000', 'test:p001', 'test:p002']);
  });
});
