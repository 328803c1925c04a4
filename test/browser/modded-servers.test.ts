import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import yazl from 'yazl';
import type { ServerDetail, ServerPage, SoftwareSyncResult, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeUpstream, type FakeFabric } from '../support/fake-upstream.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';
import { fact, waitForServerPage } from './browser.js';
import { screenshot, signedInPage } from './support-admin.js';

/** A `<dt>` term's `<dd>` inside `scope`. */

/** The option labels of a select, once they equal `expected` (the lists arrive after the page). */
const optionsOf = (select: Locator, expected: string[]) =>
  waitFor(async () => {
    const labels = await select.locator('option').allTextContents();
    return JSON.stringify(labels) === JSON.stringify(expected) ? labels : undefined;
  }, { what: `options ${expected.join(', ')}` });

/** A local meta.fabricmc.net (two stable games, two stable loaders) and piston-meta; the launchers are any bytes: the fake Agent runs nothing. */
function fabricUpstream(upstream: FakeUpstream): void {
  upstream.mojang = [
    { id: '1.21.4', type: 'release', java: 21, bytes: randomBytes(32) },
    { id: '1.21.1', type: 'release', java: 21, bytes: randomBytes(32) },
  ];
  const launchers = new Map<string, Buffer>();
  const fabric: FakeFabric = {
    games: [{ version: '1.21.4', stable: true }, { version: '1.21.1', stable: true }],
    loaders: [{ version: '0.17.0-beta.1', stable: false }, { version: '0.16.10', stable: true }, { version: '0.16.9', stable: true }],
    installers: [{ version: '1.0.1', stable: true }],
    launcher: (game, loader, installer) => {
      const key = `${game}/${loader}/${installer}`;
      if (!launchers.has(key)) launchers.set(key, randomBytes(64));
      return launchers.get(key);
    },
  };
  upstream.fabric = fabric;
}

/** Everything a modded-server page test needs: a Controller on local upstreams, a fake Agent, a team, a signed-in page. */
function useRig(extraArgs: () => Promise<string[]>) {
  const rig = {} as { t: TestController; admin: ApiClient; agent: FakeAgent; teamId: string; browser: Browser; page: Page; pageErrors: string[] };
  before(async () => {
    rig.pageErrors = [];
    rig.t = await startTestController({ extraArgs: await extraArgs() });
    ({ admin: rig.admin } = await setupAdmin(rig.t));
    const synced = await rig.admin.post<SoftwareSyncResult>('/software/sync');
    expect(synced.body.sources.find((s) => s.source === 'fabric'), synced.text).to.deep.include({ ok: true, versionCount: 2 });
    rig.agent = await FakeAgent.connect(rig.admin, rig.t.controller.grpcPort, 'edge');
    rig.teamId = (await rig.admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    ({ browser: rig.browser, page: rig.page } = await signedInPage(rig.t.baseUrl, rig.pageErrors));
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    rig.agent?.stop();
    await rig.browser?.close();
    await rig.t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });
  afterEach(() => expect(rig.pageErrors, 'uncaught errors in the page').to.deep.equal([]));
  return rig;
}

const detailNamed = async (admin: ApiClient, name: string) => {
  const item = (await admin.get<ServerPage>('/servers')).body.items.find((s) => s.name === name);
  expect(item, `server ${name}`).to.not.equal(undefined);
  return (await admin.get<ServerDetail>(`/servers/${item!.id}`)).body;
};

async function fillResources(page: Page, name: string): Promise<void> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('CPU (millicores)').fill('100');
  await page.getByLabel('Memory (MiB)').fill('64');
}

/**
 * The New server form and the Software card for a mod loader template (Fabric, from a local meta
 * API): the game version and the Loader version select, newest stable first chosen.
 */
describe('web UI: a Fabric server\'s loader version, and the Software card\'s loader', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  const rig = useRig(async () => {
    upstream = await FakeUpstream.start();
    fabricUpstream(upstream);
    return upstream.controllerArgs;
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
  after(() => upstream?.close());

  it('offers the game versions and, for the chosen one, its loader versions with the newest stable chosen; a new version starts from its newest again', async () => {
    const { page } = rig;
    // The modpack choice follows GET /templates: without a modrinth template there is none.
    await page.route('**/api/v1/templates?*', async (route) => {
      const res = await route.fetch();
      const body = await res.json() as { items: { id: string }[] };
      await route.fulfill({ response: res, json: { ...body, items: body.items.filter((t) => t.id !== 'modrinth') } });
    });
    await page.goto(`${rig.t.baseUrl}/servers/new`);
    await page.getByRole('heading', { level: 1, name: 'New server' }).waitFor();
    await page.getByLabel('Template').selectOption('fabric');
    const version = page.getByLabel('Version', { exact: true });
    await optionsOf(version, ['1.21.4 (Java 21)', '1.21.1 (Java 21)']);
    const loader = page.getByLabel('Loader version');
    await optionsOf(loader, ['0.16.10 (STABLE), newest', '0.16.9 (STABLE)']);
    expect(await loader.inputValue()).to.equal('0.16.10');
    await loader.selectOption('0.16.9');
    await version.selectOption('1.21.1');
    await waitFor(async () => (await loader.inputValue()) === '0.16.10', { what: 'the loader back to the newest for 1.21.1' });
    await version.selectOption('1.21.4');
    await loader.selectOption('0.16.9');
    expect(await page.getByLabel('Search modpacks').count(), 'no modpack search without the modrinth template').to.equal(0);
    expect(await page.getByLabel('Template').locator('option[value="modrinth"]').count()).to.equal(0);
    await page.unroute('**/api/v1/templates?*');
    await fillResources(page, 'fabric-hub');
    await screenshot(page, 'modded-new-fabric');
    await page.getByRole('button', { name: 'Create server' }).click();
    await waitForServerPage(page, 'fabric-hub');
    expect((await detailNamed(rig.admin, 'fabric-hub')).software).to.deep.equal({ template: 'fabric', version: '1.21.4', build: '0.16.9' });
  });

  it('the Software card says Loader: Fabric 0.16.9, that a newer loader is listed, and its Update form offers the Loader version', async () => {
    const { page } = rig;
    await page.getByRole('tab', { name: 'Software' }).click();
    const card = page.getByRole('region', { name: 'Software' });
    await fact(card, 'Loader').filter({ hasText: /^Fabric 0\.16\.9$/ }).waitFor();
    expect(await fact(card, 'Template').textContent()).to.equal('fabric');
    expect(await fact(card, 'Version').textContent()).to.equal('1.21.4');
    expect(await fact(card, 'Build').count(), 'a loader template says Loader, not Build').to.equal(0);
    await card.getByRole('note').filter({ hasText: 'Build 0.16.10 of 1.21.4 is available.' }).waitFor();
    const form = card.getByRole('form', { name: 'Update software' });
    await optionsOf(form.getByLabel('Loader version'), ['Newest (0.16.10)', '0.16.10 (STABLE)', '0.16.9 (STABLE)']);
    await screenshot(page, 'modded-fabric-card');
  });

  it('a server created through the API without a build shows the newest stable loader', async () => {
    const res = await rig.admin.post<ServerDetail>('/servers', {
      name: 'fabric-newest', teamId: rig.teamId, nodeId: rig.agent.nodeId, software: { template: 'fabric', version: '1.21.1' }, resources: { cpuMillis: 100, memoryBytes: 64 * 2 ** 20 },
    });
    expect(res.status, res.text).to.equal(201);
    await rig.page.goto(`${rig.t.baseUrl}/servers/${res.body.id}`);
    await rig.page.getByRole('tab', { name: 'Software' }).click();
    await fact(rig.page.getByRole('region', { name: 'Software' }), 'Loader').filter({ hasText: /^Fabric 0\.16\.10$/ }).waitFor();
  });
});

interface FakePackVersion { id: string; number: string; mrpack: Buffer }

/** A `.mrpack` with no downloads and one override: all a pack needs to name its game and loader. */
async function mrpack(versionId: string, number: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const index = { formatVersion: 1, game: 'minecraft', versionId: number, name: `Fabulous Pack ${number}`, files: [], dependencies: { minecraft: '1.21.4', 'fabric-loader': '0.16.10' } };
  zip.addBuffer(Buffer.from(JSON.stringify(index)), 'modrinth.index.json');
  zip.addBuffer(Buffer.from(`pack ${versionId}\n`), 'overrides/config/fabulous.txt');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A local api.modrinth.com v2: `/v2/search` (modpacks whose title holds the query), `/v2/project/{slug}/version`, and the packs' files. */
class FakeModrinth {
  readonly searches: URLSearchParams[] = [];
  private constructor(private readonly server: Server, readonly base: string, private readonly versions: FakePackVersion[]) {}

  static async start(versions: FakePackVersion[]): Promise<FakeModrinth> {
    const handler: { fake?: FakeModrinth } = {};
    const server = createServer((req, res) => {
      const answer = handler.fake?.answer(new URL(req.url ?? '/', 'http://modrinth'));
      if (answer === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      if (Buffer.isBuffer(answer)) return void res.writeHead(200, { 'content-type': 'application/zip', 'content-length': answer.length }).end(answer);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    handler.fake = new FakeModrinth(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, versions);
    return handler.fake;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(url: URL): unknown {
    const packs = [
      { project_id: 'FabPk001', slug: 'fab-pack', title: 'Fabulous Pack', description: 'Fast Fabric.', downloads: 12_345, versions: ['1.21.4'], categories: ['fabric', 'optimization'] },
      { project_id: 'OthPk002', slug: 'other-pack', title: 'Other Pack', description: 'Something else.', downloads: 9, versions: ['1.20.1', '1.21.1'], categories: ['neoforge'] },
    ];
    if (url.pathname === '/v2/search') {
      this.searches.push(url.searchParams);
      const query = (url.searchParams.get('query') ?? '').toLowerCase();
      const hits = packs.filter((p) => p.title.toLowerCase().includes(query)).map((p) => ({ ...p, project_type: 'modpack', display_categories: p.categories, icon_url: '' }));
      return { hits, offset: 0, limit: 20, total_hits: hits.length };
    }
    if (url.pathname === '/v2/project/fab-pack/version') {
      return this.versions.map((v, i) => ({
        id: v.id, project_id: 'FabPk001', name: `Fabulous Pack ${v.number}`, version_number: v.number, game_versions: ['1.21.4'], loaders: ['fabric'], version_type: 'release',
        date_published: new Date(Date.UTC(2026, 10, 20 - i)).toISOString(),
        files: [{ hashes: { sha512: createHash('sha512').update(v.mrpack).digest('hex'), sha1: createHash('sha1').update(v.mrpack).digest('hex') }, url: `${this.base}/data/${v.id}.mrpack`, filename: `fab-pack-${v.number}.mrpack`, primary: true, size: v.mrpack.length }],
      }));
    }
    return this.versions.find((v) => url.pathname === `/data/${v.id}.mrpack`)?.mrpack;
  }
}

/**
 * The Modpack choice of the
 * New server form against a local Modrinth: the search (debounced), a pack's versions, the server
 * created with `software: {template: "modrinth", version: "<slug>:<id>"}`, its Software card.
 */
describe('web UI: a Modrinth modpack from the New server form, and its Software card', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  let modrinth: FakeModrinth;
  const rig = useRig(async () => {
    upstream = await FakeUpstream.start();
    fabricUpstream(upstream);
    modrinth = await FakeModrinth.start([
      { id: 'VerNew02', number: '2.0.0', mrpack: await mrpack('VerNew02', '2.0.0') },
      { id: 'VerOld01', number: '1.0.0', mrpack: await mrpack('VerOld01', '1.0.0') },
    ]);
    return [...upstream.controllerArgs, '--software-source', `modrinth=${modrinth.base}/v2`];
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await upstream?.close();
    await modrinth?.close();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  it('searches Modrinth\'s modpacks as one types (once the typing pauses), lists a pack\'s versions and creates the server with "<slug>:<id>"', async () => {
    const { page } = rig;
    await page.goto(`${rig.t.baseUrl}/servers/new`);
    await page.getByRole('heading', { level: 1, name: 'New server' }).waitFor();
    await page.getByLabel('Template').selectOption('modrinth');
    const packs = page.getByRole('group', { name: 'Modpack' });
    await packs.getByRole('radio', { name: 'Other Pack' }).waitFor();
    const searchesBefore = modrinth.searches.length;
    await page.getByLabel('Search modpacks').pressSequentially('fab', { delay: 30 });
    await waitFor(async () => (await packs.getByRole('radio').count()) === 1 || undefined, { what: 'only the matching pack' });
    const asked = modrinth.searches.slice(searchesBefore);
    expect(asked.map((q) => q.get('query')), 'one search once the typing paused').to.deep.equal(['fab']);
    expect(asked[0].get('facets')).to.include('project_type:modpack');
    const pack = packs.getByRole('radio', { name: 'Fabulous Pack' });
    expect(await pack.getAttribute('aria-describedby').then((id) => page.locator(`[id="${id}"]`).textContent())).to.match(/^12\.3k downloads · Minecraft 1\.21\.4/);
    expect(await page.getByLabel('Pack version').count(), 'no version until a pack is chosen').to.equal(0);
    await pack.check();
    const version = page.getByLabel('Pack version');
    // Modrinth's listing names the loader, not its version: that is known once the Controller has read the pack.
    await optionsOf(version, ['2.0.0 (Minecraft 1.21.4, Fabric)', '1.0.0 (Minecraft 1.21.4, Fabric)']);
    expect(await version.inputValue()).to.equal('fab-pack:VerNew02');
    expect(await page.getByLabel('Loader version').count(), 'the pack fixes its loader').to.equal(0);
    await fillResources(page, 'fab-server');
    await screenshot(page, 'modded-new-modpack');
    await page.getByRole('button', { name: 'Create server' }).click();
    await waitForServerPage(page, 'fab-server');
    expect((await detailNamed(rig.admin, 'fab-server')).software).to.deep.equal({ template: 'modrinth', version: 'fab-pack:VerNew02' });
  });

  it('the Software card shows the pack, its version, game version and loader; the Update form offers the pack\'s versions', async () => {
    const { page } = rig;
    await page.getByRole('tab', { name: 'Software' }).click();
    const card = page.getByRole('region', { name: 'Software' });
    await fact(card, 'Pack version').filter({ hasText: /^2\.0\.0$/ }).waitFor();
    expect(await fact(card, 'Modpack').textContent()).to.match(/fab-pack/);
    expect(await fact(card, 'Game version').textContent()).to.equal('1.21.4');
    expect(await fact(card, 'Loader').textContent()).to.equal('Fabric 0.16.10');
    const form = card.getByRole('form', { name: 'Update software' });
    await optionsOf(form.getByLabel('Target version'), ['2.0.0 (Minecraft 1.21.4, Fabric) (current)', '1.0.0 (Minecraft 1.21.4, Fabric)']);
    await screenshot(page, 'modded-modpack-card');
  });

  it('a pack search that matches nothing says so', async () => {
    const { page } = rig;
    await page.goto(`${rig.t.baseUrl}/servers/new`);
    await page.getByLabel('Template').selectOption('modrinth');
    await page.getByLabel('Search modpacks').fill('zzz');
    await page.getByRole('group', { name: 'Modpack' }).getByText('No modpack matches “zzz”.').waitFor();
  });
});
