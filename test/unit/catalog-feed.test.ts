import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { hangarToFeed, type HangarProject, type HangarVersion } from '../../src/controller/adapters/plugins/hangar.js';
import { modrinthToFeed, type ModrinthProject, type ModrinthVersion } from '../../src/controller/adapters/plugins/modrinth.js';
import { CatalogIndex } from '../../src/controller/domain/catalog-index.js';
import { CatalogFeedError, checkFeed, parseFeed } from '../../src/controller/adapters/plugins/feed.js';
import type { CatalogFeed, FeedPlugin } from '../../src/controller/schemas/catalog-feed.js';

const fixture = async <T>(path: string) => JSON.parse(await readFile(new URL(`../fixtures/catalog/${path}`, import.meta.url), 'utf8')) as T;
const sha = (c: string) => c.repeat(64);

const plugin = (id: string, downloads: number, versions: Partial<FeedPlugin['versions'][number]>[] = [{}], extra: Partial<FeedPlugin> = {}): FeedPlugin => ({
  id, source: id.split(':')[0], slug: id.split(':')[1], name: id.split(':')[1], summary: `about ${id}`, license: 'MIT', downloads,
  url: `https://example.com/${id}`, updated: '2024-01-01T00:00:00Z',
  versions: versions.map((v, i) => ({
    versionId: `${id}-v${i}`, version: `1.${i}`, platforms: ['paper'], gameVersions: ['1.21.4'], dependencies: [], publishedAt: `2024-0${i + 1}-01T00:00:00Z`,
    download: { url: `https://example.com/${id}-${i}.jar`, sha256: sha('a'), size: 10 }, ...v,
  })),
  ...extra,
});

describe('catalog feed: format checks', () => {
  it('accepts a valid feed and ignores fields it does not read', () => {
    const feed = checkFeed({ plugins: [{ ...plugin('x:one', 1), extra: true }], denylist: [], generator: 'test' });
    expect(feed.plugins).to.have.length(1);
  });

  it('names the field of a bad feed', () => {
    expect(() => parseFeed('{')).to.throw(CatalogFeedError, /not valid JSON/);
    expect(() => checkFeed({ plugins: [] })).to.throw(CatalogFeedError, /denylist/);
    const bad = plugin('x:one', 1, [{ download: { url: 'https://e/x.jar', sha256: 'nothex', size: 1 } }]);
    expect(() => checkFeed({ plugins: [bad], denylist: [] })).to.throw(CatalogFeedError, /sha256/);
    expect(() => checkFeed({ plugins: [plugin('x:one', 1), plugin('x:one', 2)], denylist: [] })).to.throw(CatalogFeedError, /appears twice/);
    expect(() => checkFeed({ plugins: [{ ...plugin('x:one', 1), source: 'y' }], denylist: [] })).to.throw(CatalogFeedError, /does not start with its source/);
    expect(() => checkFeed({ plugins: [plugin('x:one', 1, [{}, { versionId: 'x:one-v0' }])], denylist: [] })).to.throw(CatalogFeedError, /versionId .* twice/);
  });
});

describe('catalog index: search, filters, order', () => {
  const feed: CatalogFeed = {
    plugins: [
      plugin('s:alpha', 50, [{ platforms: ['velocity'], gameVersions: ['3.4.0'] }], { summary: 'A PROXY tab list' }),
      plugin('s:beta', 500, [{ platforms: ['bukkit'], gameVersions: ['1.20.6'] }, { platforms: ['paper'], gameVersions: ['1.21.4'] }]),
      plugin('s:gamma', 500, [{ platforms: ['paper'], gameVersions: ['1.21.1'] }], { name: 'Gamma Chat' }),
      plugin('s:delta', 10, [{ platforms: ['velocity'], gameVersions: ['1.21.4'] }]),
    ],
    denylist: [],
  };
  const index = new CatalogIndex(feed);
  const ids = (list: FeedPlugin[]) => list.map((p) => p.id);

  it('lists most downloaded first, ties by id', () => {
    expect(ids(index.search({}, undefined, 10))).to.deep.equal(['s:beta', 's:gamma', 's:alpha', 's:delta']);
  });

  it('search matches name, slug or summary case-insensitively', () => {
    expect(ids(index.search({ search: 'CHAT' }, undefined, 10))).to.deep.equal(['s:gamma']);
    expect(ids(index.search({ search: 'proxy' }, undefined, 10))).to.deep.equal(['s:alpha']);
    expect(ids(index.search({ search: 'delt' }, undefined, 10))).to.deep.equal(['s:delta']);
  });

  it('platform and gameVersion must hold on the same version; paper also loads bukkit plugins', () => {
    expect(ids(index.search({ platform: 'velocity' }, undefined, 10))).to.deep.equal(['s:alpha', 's:delta']);
    expect(ids(index.search({ gameVersion: '1.21.4' }, undefined, 10))).to.deep.equal(['s:beta', 's:delta']);
    expect(ids(index.search({ platform: 'paper', gameVersion: '1.20.6' }, undefined, 10))).to.deep.equal(['s:beta']);
    expect(ids(index.search({ platform: 'velocity', gameVersion: '1.20.6' }, undefined, 10))).to.deep.equal([]);
  });

  it('pages after a position without repeats', () => {
    const first = index.search({}, undefined, 2);
    const last = first[first.length - 1];
    expect(ids(index.search({}, { downloads: last.downloads, id: last.id }, 10))).to.deep.equal(['s:alpha', 's:delta']);
  });
});

describe('catalog adapters on recorded responses', () => {
  it('Modrinth v2: primary files by sha512 (no download), required dependencies by project or version', async () => {
    const projects = await fixture<ModrinthProject[]>('modrinth/projects.json');
    const versions = {
      Vebnzrzj: await fixture<ModrinthVersion[]>('modrinth/versions-Vebnzrzj.json'),
      K3c4b0Qe: await fixture<ModrinthVersion[]>('modrinth/versions-K3c4b0Qe.json'),
    };
    const plugins = modrinthToFeed(projects, versions);
    const feed = checkFeed({ plugins, denylist: [] });
    const [lp, lpc] = feed.plugins;
    expect(lp).to.include({ id: 'modrinth:Vebnzrzj', source: 'modrinth', slug: 'luckperms', name: 'LuckPerms', license: 'MIT', downloads: 1873204, url: 'https://modrinth.com/plugin/luckperms' });
    expect(lp.versions.map((v) => v.platforms)).to.deep.equal([['bukkit', 'folia', 'paper', 'purpur', 'spigot'], ['velocity']]);
    expect(lpc.versions[0]).to.deep.include({ versionId: 'mQ1nV7ab', version: '3.6.1', dependencies: ['modrinth:Vebnzrzj'] });
    expect(lpc.versions[0].download).to.deep.equal({ url: 'https://cdn.modrinth.com/data/K3c4b0Qe/versions/mQ1nV7ab/LPC-3.6.1.jar', sha512: 'aa11'.repeat(32), size: 24512 });
    // The older version names its dependency by version id only.
    expect(lpc.versions[1].dependencies).to.deep.equal(['modrinth:Vebnzrzj']);
  });

  it('Hangar v1: one feed version per distinct jar, external files left out, dependencies by project', async () => {
    const entries = await Promise.all(['ViaVersion', 'ViaBackwards'].map(async (slug) => ({
      project: await fixture<HangarProject>(`hangar/project-${slug}.json`),
      versions: (await fixture<{ result: HangarVersion[] }>(`hangar/versions-${slug}.json`)).result,
    })));
    const feed = checkFeed({ plugins: hangarToFeed(entries), denylist: [] });
    const [via, back] = feed.plugins;
    expect(via).to.include({ id: 'hangar:ViaVersion', license: 'GPL', downloads: 3104551, url: 'https://hangar.papermc.io/ViaVersion/ViaVersion' });
    expect(via.versions).to.have.length(1);
    expect(via.versions[0]).to.deep.include({ versionId: '98811', platforms: ['paper', 'velocity'], gameVersions: ['1.20.6', '1.21.1', '1.21.4', '3.3', '3.4'] });
    expect(via.versions[0].download.sha256).to.equal('5b7d2c6a0e4f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b');
    expect(back.versions.map((v) => v.versionId)).to.deep.equal(['98820-paper', '98820-waterfall']);
    expect(back.versions.every((v) => v.dependencies.join() === 'hangar:ViaVersion')).to.equal(true);
  });
});
