import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginPlacer, PluginPlacementError } from '../../src/agent/plugins/plugin-placer.js';
import { CatalogIndex } from '../../src/controller/domain/catalog-index.js';
import type { FeedPlugin } from '../../src/controller/schemas/catalog-feed.js';
import { installationView } from '../../src/controller/services/plugins/plugin-views.js';
import type { PluginInstallationDoc } from '../../src/controller/store/records.js';
import type { DesiredPlugin } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import { pluginFolderOf } from '../../src/shared/plugin-folder.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('Agent plugin placement: checksums, a manifest, operator jars left alone', () => {
  let dir: string;
  const blobs = new Map<string, Buffer>();
  let fetched: string[] = [];
  /** Serves the registered bytes; `lie` serves other bytes for a sha256, as a corrupt source would. */
  const fetcher = (lie = false) => ({
    async fetch(want: { sha256?: string }, dest: string) {
      fetched.push(want.sha256!);
      await writeFile(dest, lie ? Buffer.from('tampered') : blobs.get(want.sha256!)!);
    },
  });
  const jar = (text: string): DesiredPlugin => {
    const bytes = Buffer.from(text);
    blobs.set(sha(bytes), bytes);
    return { installationId: text, fileName: `${text}.jar`, sha256: sha(bytes), sizeBytes: bytes.length, pluginId: `t:${text}` };
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-placer-'));
    fetched = [];
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('places, caches, replaces and removes only the jars it manages', async () => {
    const placer = new PluginPlacer(join(dir, 'cache'), fetcher(), silentLogger);
    const server = join(dir, 'server');
    const a = jar('alpha');
    const b = jar('beta');
    await placer.place([a, b], server);
    await writeFile(join(server, 'plugins', 'operator.jar'), 'mine');
    expect((await readdir(join(server, 'plugins'))).sort()).to.deep.equal(['.cairn-managed.json', 'alpha.jar', 'beta.jar', 'operator.jar']);
    await placer.place([b], server);
    expect((await readdir(join(server, 'plugins'))).sort()).to.deep.equal(['.cairn-managed.json', 'beta.jar', 'operator.jar']);
    expect(fetched).to.have.length(2);
    await placer.place([a], server);
    expect(fetched).to.have.length(2);
    expect(await readFile(join(server, 'plugins', 'alpha.jar'), 'utf8')).to.equal('alpha');
    expect(await readFile(join(server, 'plugins', 'operator.jar'), 'utf8')).to.equal('mine');
  });

  it('a mod loader\'s server gets its jars in mods/, and plugins/ stays untouched', async () => {
    expect([pluginFolderOf('fabric'), pluginFolderOf('neoforge'), pluginFolderOf('forge'), pluginFolderOf('paper'), pluginFolderOf('velocity')]).to.deep.equal(['mods', 'mods', 'mods', 'plugins', 'plugins']);
    const placer = new PluginPlacer(join(dir, 'cache'), fetcher(), silentLogger);
    const server = join(dir, 'server');
    await placer.place([jar('lithium')], server, undefined, pluginFolderOf('fabric'));
    expect((await readdir(join(server, 'mods'))).sort()).to.deep.equal(['.cairn-managed.json', 'lithium.jar']);
    expect(await readdir(server)).to.deep.equal(['mods']);
  });

  it('refuses bytes that do not match the sha256, and an unsafe file name, before touching plugins/', async () => {
    const placer = new PluginPlacer(join(dir, 'cache'), fetcher(true), silentLogger);
    const error = await placer.place([jar('gamma')], join(dir, 'server')).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(PluginPlacementError);
    const unsafe = { ...jar('delta'), fileName: '../escape.jar' };
    expect(await placer.place([unsafe], join(dir, 'server')).then(() => undefined, (e: unknown) => e)).to.be.instanceOf(PluginPlacementError);
  });
});

describe('installation view: denied and updateAvailable follow the catalog', () => {
  const plugin: FeedPlugin = {
    id: 't:x', source: 't', slug: 'x', name: 'X', summary: '', license: 'MIT', downloads: 1, url: '', updated: '2024-01-01T00:00:00Z',
    versions: ['1.0', '1.1'].map((version, i) => ({
      versionId: `x-${version}`, version, platforms: ['paper'], gameVersions: ['1.21.4'], dependencies: [], publishedAt: `2024-0${i + 1}-01T00:00:00Z`,
      download: { url: 'https://e/x.jar', sha256: 'a'.repeat(64), size: 1 },
    })),
  };
  const doc: PluginInstallationDoc = {
    _id: 'i1', serverId: 's', key: 's t:x', pluginId: 't:x', name: 'X', source: 'CATALOG', version: '1.0', catalogVersionId: 'x-1.0', verified: true,
    compatibilityConfirmed: true, dependency: false, requires: [], fileName: 'x-1.0.jar', sha256: 'a'.repeat(64), sizeBytes: 1, installedAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z',
  };
  const target = { platform: 'paper', gameVersion: '1.21.4' };

  it('offers the newer compatible version; nothing once it is installed', () => {
    expect(installationView(doc, [doc], new CatalogIndex({ plugins: [plugin], denylist: [] }), target).updateAvailable).to.deep.equal({ versionId: 'x-1.1', version: '1.1' });
    expect(installationView({ ...doc, version: '1.1', catalogVersionId: 'x-1.1' }, [doc], new CatalogIndex({ plugins: [plugin], denylist: [] }), target).updateAvailable).to.equal(undefined);
  });

  it('a later denylist names the installed version: denied is set, and a denied newer version is not offered', () => {
    const view = installationView(doc, [doc], new CatalogIndex({ plugins: [plugin], denylist: [{ pluginId: 't:x', versionId: 'x-1.0', reason: 'CVE', link: 'https://e/cve' }, { pluginId: 't:x', version: '1.1', reason: 'worse' }] }), target);
    expect(view.denied).to.deep.equal({ reason: 'CVE', link: 'https://e/cve' });
    expect(view.updateAvailable).to.equal(undefined);
  });
});
