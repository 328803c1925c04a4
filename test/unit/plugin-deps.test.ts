import { expect } from 'chai';
import { CatalogIndex } from '../../src/controller/domain/catalog-index.js';
import type { DenyEntry, FeedPlugin } from '../../src/controller/schemas/catalog-feed.js';
import { isNewer, newestCompatible } from '../../src/controller/domain/plugin-compat.js';
import { orphanedDependencies, planInstall, planRemoval, PluginResolutionError, requiredBy, type InstalledPlugin } from '../../src/controller/domain/plugin-deps.js';

const target = { platform: 'paper', gameVersion: '1.21.4' };

/** `versions`: [version, gameVersions, dependencies, publishedMonth] */
function plugin(id: string, versions: [string, string[], string[], number][]): FeedPlugin {
  return {
    id, source: 't', slug: id.slice(2), name: id.slice(2), summary: '', license: 'MIT', downloads: 1, url: '', updated: '2024-01-01T00:00:00Z',
    versions: versions.map(([version, gameVersions, dependencies, month]) => ({
      versionId: `${id}@${version}`, version, platforms: ['paper'], gameVersions, dependencies,
      publishedAt: `2024-${String(month).padStart(2, '0')}-01T00:00:00Z`, download: { url: 'https://e/x.jar', sha256: 'a'.repeat(64), size: 1 },
    })),
  };
}

const now = ['1.21.4'];
const catalogOf = (plugins: FeedPlugin[], denylist: DenyEntry[] = []) => new CatalogIndex({ plugins, denylist });
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(PluginResolutionError);
    return e as PluginResolutionError;
  }
  throw new Error('expected a PluginResolutionError');
};

describe('plugin dependency resolution', () => {
  const catalog = catalogOf([
    plugin('t:chat', [['2.0', now, ['t:core'], 5]]),
    plugin('t:core', [['1.0', now, ['t:api'], 3], ['1.1', now, ['t:api'], 4]]),
    plugin('t:api', [['7.0', now, [], 1]]),
    plugin('t:quests', [['1.0', now, ['t:npcs', 't:core'], 6]]),
    plugin('t:npcs', [['3.0', now, ['t:api'], 2]]),
    plugin('t:ping', [['1.0', now, ['t:pong'], 2]]),
    plugin('t:pong', [['1.0', now, ['t:ping'], 2]]),
    plugin('t:broken', [['1.0', now, ['t:ghost'], 2]]),
    plugin('t:old', [['1.0', ['1.20.6'], [], 1], ['0.9', ['1.20.6'], [], 0 + 1]]),
    plugin('t:needs-old', [['1.0', now, ['t:old'], 2]]),
  ]);
  const ids = (plan: { pluginId: string }[]) => plan.map((p) => p.pluginId);

  it('a chain installs the whole way down, the newest compatible versions, all but the first as dependencies', () => {
    const plan = planInstall(catalog, [], { pluginId: 't:chat', force: false, target });
    expect(ids(plan)).to.deep.equal(['t:chat', 't:core', 't:api']);
    expect(plan.map((p) => p.dependency)).to.deep.equal([false, true, true]);
    expect(plan[1].version.version).to.equal('1.1');
  });

  it('a diamond installs the shared dependency once', () => {
    expect(ids(planInstall(catalog, [], { pluginId: 't:quests', force: false, target }))).to.deep.equal(['t:quests', 't:npcs', 't:core', 't:api']);
  });

  it('plugins already installed satisfy requirements and are left alone', () => {
    const installed: InstalledPlugin[] = [{ pluginId: 't:api', dependency: false, requires: [] }];
    expect(ids(planInstall(catalog, installed, { pluginId: 't:chat', force: false, target }))).to.deep.equal(['t:chat', 't:core']);
  });

  it('a cycle ends', () => {
    expect(ids(planInstall(catalog, [], { pluginId: 't:ping', force: false, target }))).to.deep.equal(['t:ping', 't:pong']);
  });

  it('a dependency missing from the catalog is named', () => {
    const e = failure(() => planInstall(catalog, [], { pluginId: 't:broken', force: false, target }));
    expect(e.failure).to.equal('missing_dependency');
    expect(e.message).to.include('t:ghost');
  });

  it('incompatible without force; with force the newest version, compatibility not confirmed, dependencies too', () => {
    expect(failure(() => planInstall(catalog, [], { pluginId: 't:old', force: false, target })).failure).to.equal('incompatible');
    const forced = planInstall(catalog, [], { pluginId: 't:old', force: true, target });
    expect(forced[0]).to.include({ compatibilityConfirmed: false });
    expect(forced[0].version.version).to.equal('1.0');
    const e = failure(() => planInstall(catalog, [], { pluginId: 't:needs-old', force: false, target }));
    expect(e).to.include({ failure: 'incompatible', pluginId: 't:old' });
    expect(planInstall(catalog, [], { pluginId: 't:needs-old', force: true, target }).map((p) => p.compatibilityConfirmed)).to.deep.equal([true, false]);
  });

  it('a named version: unknown, incompatible or denied', () => {
    expect(failure(() => planInstall(catalog, [], { pluginId: 't:core', versionId: 'nope', force: false, target })).failure).to.equal('unknown_version');
    expect(failure(() => planInstall(catalog, [], { pluginId: 't:nope', force: false, target })).failure).to.equal('unknown_plugin');
    const denied = catalogOf(catalog.feed.plugins, [{ pluginId: 't:core', versionId: 't:core@1.1', reason: 'broken' }]);
    expect(failure(() => planInstall(denied, [], { pluginId: 't:core', versionId: 't:core@1.1', force: true, target })).failure).to.equal('denied');
    // Without a version named, the denied newest is skipped for the next one.
    expect(planInstall(denied, [], { pluginId: 't:core', force: false, target })[0].version.version).to.equal('1.0');
    const allDenied = catalogOf(catalog.feed.plugins, [{ pluginId: 't:core', reason: 'withdrawn' }]);
    expect(failure(() => planInstall(allDenied, [], { pluginId: 't:chat', force: false, target }))).to.include({ failure: 'denied', pluginId: 't:core' });
  });

  it('newest compatible and newer-than for updates', () => {
    const core = catalog.plugin('t:core')!;
    expect(newestCompatible(core, target, [])!.version).to.equal('1.1');
    expect(isNewer(core.versions[1], core.versions[0])).to.equal(true);
    expect(isNewer(core.versions[0], core.versions[1])).to.equal(false);
    expect(isNewer(core.versions[1], core.versions[1])).to.equal(false);
  });
});

describe('plugin removal planning', () => {
  const chat: InstalledPlugin = { pluginId: 't:chat', dependency: false, requires: ['t:core'] };
  const core: InstalledPlugin = { pluginId: 't:core', dependency: true, requires: ['t:api'] };
  const api: InstalledPlugin = { pluginId: 't:api', dependency: true, requires: [] };
  const quests: InstalledPlugin = { pluginId: 't:quests', dependency: false, requires: ['t:api'] };

  it('requiredBy lists the installed plugins that require one', () => {
    expect(requiredBy([chat, core, api, quests], 't:api')).to.deep.equal(['t:core', 't:quests']);
  });

  it('a required plugin cannot go; removing its dependant takes the dependencies nothing else needs', () => {
    expect(planRemoval([chat, core, api], 't:core')).to.deep.equal({ blockedBy: ['t:chat'] });
    expect(planRemoval([chat, core, api], 't:chat')).to.deep.equal({ remove: ['t:chat', 't:core', 't:api'] });
    expect(planRemoval([chat, core, api, quests], 't:chat')).to.deep.equal({ remove: ['t:chat', 't:core'] });
  });

  it('a cycle does not block its own removal', () => {
    const ping: InstalledPlugin = { pluginId: 't:ping', dependency: false, requires: ['t:pong'] };
    const pong: InstalledPlugin = { pluginId: 't:pong', dependency: true, requires: ['t:ping'] };
    expect(planRemoval([ping, pong], 't:ping')).to.deep.equal({ remove: ['t:ping', 't:pong'] });
    expect(planRemoval([ping, pong], 't:pong')).to.deep.equal({ blockedBy: ['t:ping'] });
  });

  it('orphaned dependencies are those no explicit plugin reaches', () => {
    const updatedChat = { ...chat, requires: [] };
    expect(orphanedDependencies([updatedChat, core, api])).to.deep.equal(['t:core', 't:api']);
    expect(orphanedDependencies([chat, core, api])).to.deep.equal([]);
  });
});
