import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { FakeCatalogApis } from '../support/fake-catalog-apis.js';
import { GiB, startFleet, type Fleet } from '../support/fleet.js';
import type { CatalogPluginDetail, CatalogPluginPage, CatalogSyncResult, PluginInstallation, ServerDetail } from '../support/api-types.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const enc = encodeURIComponent;

describe('the catalog without --catalog-source: Modrinth and Hangar, the sample only while neither answers', function () {
  this.timeout(90_000);
  let apis: FakeCatalogApis;
  let f: Fleet;
  const page = async (query = '') => {
    const res = await f.admin.get<CatalogPluginPage>(`/catalog/plugins?limit=200${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  before(async () => {
    apis = await FakeCatalogApis.start();
    // Down at the first start: an offline Controller.
    apis.down = true;
    f = await startFleet({ extraArgs: apis.controllerArgs() });
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning them
  after(async () => Promise.all([f?.dispose(), apis?.close()]));

  it('with both sources down the shipped sample is served, and every answer says sample', async () => {
    await waitFor(async () => apis.requests.some((r) => r.startsWith('/hangar/')), { what: 'the first sync to try Hangar' });
    const list = await page();
    expect(list.sample).to.equal(true);
    expect(list.items.length).to.be.greaterThan(5);
    expect(list.items.every((p) => p.source === 'sample')).to.equal(true);
    const detail = await f.admin.get<CatalogPluginDetail>(`/catalog/plugins/${enc('sample:luckperms')}`);
    expect(detail.body.sample).to.equal(true);
    const sync = await f.admin.post<CatalogSyncResult>('/catalog/sync');
    expect(sync.status, sync.text).to.equal(200);
    expect(sync.body).to.include({ source: 'sample', sample: true });
    expect(sync.body.unavailable?.map((u) => u.source)).to.deep.equal(['modrinth', 'hangar']);
  });

  it('a sync that reaches both replaces the sample: plugins and Fabric mods from Modrinth, plugins from Hangar', async () => {
    apis.down = false;
    apis.throttle = 1;
    const sync = await f.admin.post<CatalogSyncResult>('/catalog/sync');
    expect(sync.status, sync.text).to.equal(200);
    expect(sync.body).to.include({ source: 'modrinth+hangar', sample: false, pluginCount: 5, changed: true });
    expect(sync.body.unavailable).to.equal(undefined);
    // The 429 was waited out, as its Retry-After said.
    expect(apis.throttle).to.equal(0);
    expect(apis.requests.filter((r) => r.startsWith('/modrinth/v2/search')).map((r) => decodeURIComponent(r))).to.satisfy((rs: string[]) => rs.some((r) => r.includes('project_type:mod') && r.includes('categories:fabric') && r.includes('index=downloads')));
    const all = await page();
    expect(all.sample).to.equal(false);
    expect(all.items.map((p) => p.id).sort()).to.deep.equal(['hangar:ViaBackwards', 'hangar:ViaVersion', 'modrinth:FaBr1cM0', 'modrinth:K3c4b0Qe', 'modrinth:Vebnzrzj']);
    expect(all.items.some((p) => p.source === 'sample')).to.equal(false);
    const fabric = await page('&platform=fabric&gameVersion=1.21.4');
    expect(fabric.items.map((p) => p.id)).to.deep.equal(['modrinth:FaBr1cM0']);
    const mod = await f.admin.get<CatalogPluginDetail>(`/catalog/plugins/${enc('modrinth:FaBr1cM0')}`);
    expect(mod.body).to.include({ sample: false, url: 'https://modrinth.com/mod/fake-lithium' });
    expect(mod.body.versions[0].platforms).to.deep.equal(['fabric']);
    const paper = (await page('&platform=paper&gameVersion=1.21.4')).items.map((p) => p.id);
    expect(paper).to.include.members(['modrinth:Vebnzrzj', 'hangar:ViaVersion']);
    expect(paper).to.not.include('modrinth:FaBr1cM0');
  });

  it('a source down later keeps the plugins it gave; both down keeps the real catalog, never the sample', async () => {
    apis.down = 'hangar';
    const partial = await f.admin.post<CatalogSyncResult>('/catalog/sync');
    expect(partial.body).to.include({ source: 'modrinth', sample: false, pluginCount: 5 });
    expect(partial.body.unavailable?.map((u) => u.source)).to.deep.equal(['hangar']);
    expect((await page()).items.map((p) => p.id)).to.include('hangar:ViaVersion');
    apis.down = true;
    expectProblem(await f.admin.post('/catalog/sync'), 502, 'catalog_sync_failed', 'no catalog source answered');
    const kept = await page();
    expect(kept.sample).to.equal(false);
    expect(kept.items).to.have.length(5);
  });

  it('a Modrinth jar is checked against its sha512 at install and kept by the sha256 of the same bytes', async () => {
    apis.down = false;
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'perms', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    const installed = await f.admin.post<PluginInstallation>(`/servers/${created.body.id}/plugins`, { pluginId: 'modrinth:Vebnzrzj' });
    expect(installed.status, installed.text).to.equal(201);
    const jar = await (await fetch(`${apis.base}/jars/LuckPerms-Bukkit-5.4.145.jar`)).arrayBuffer();
    expect(installed.body).to.include({ version: '5.4.145-bukkit', sha256: createHash('sha256').update(Buffer.from(jar)).digest('hex') });
  });
});
