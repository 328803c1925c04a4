import { expect } from 'chai';
import { exitedBeforeReady } from '../../src/controller/domain/last-crash.js';
import { incompatiblePlugins, updateRefusal } from '../../src/controller/domain/software-update.js';
import type { FeedPlugin } from '../../src/controller/schemas/catalog-feed.js';

const current = { template: 'paper', version: '1.21.1', build: '100' };

describe('software update refusals (pure)', () => {
  it('the same version with no build or the same build is no update; another build of it is', () => {
    expect(updateRefusal(current, { version: '1.21.1' }, false)?.code).to.equal('invalid_request');
    expect(updateRefusal(current, { version: '1.21.1', build: '100' }, false)?.code).to.equal('invalid_request');
    expect(updateRefusal(current, { version: '1.21.1', build: '101' }, false)).to.equal(undefined);
  });

  it('an older game version is refused unless allowed; a newer one is not', () => {
    expect(updateRefusal(current, { version: '1.20.6' }, false)).to.include({ code: 'downgrade_refused' });
    expect(updateRefusal(current, { version: '1.20.6' }, true)).to.equal(undefined);
    expect(updateRefusal(current, { version: '1.21.10' }, false)).to.equal(undefined);
    expect(updateRefusal({ template: 'simcraft', version: '1.21.4' }, { version: '1.21.4-crash' }, false)).to.include({ code: 'downgrade_refused' });
  });
});

describe('plugins with no version for the target (pure)', () => {
  const version = (gameVersions: string[], platforms = ['paper']) => ({
    versionId: `v-${gameVersions.join('-')}`, version: '1.0', platforms, gameVersions, dependencies: [], publishedAt: '2026-01-01T00:00:00Z',
  });
  const feed = new Map<string, FeedPlugin>([
    ['fits', { id: 'fits', name: 'Fits', versions: [version(['1.21.1']), version(['1.21.4'])] } as unknown as FeedPlugin],
    ['old', { id: 'old', name: 'Old', versions: [version(['1.20.6'])] } as unknown as FeedPlugin],
    ['wrong-platform', { id: 'wrong-platform', name: 'Velo', versions: [version(['1.21.4'], ['velocity'])] } as unknown as FeedPlugin],
  ]);
  const target = { platform: 'paper', gameVersion: '1.21.4' };
  const installed = (pluginId: string, name: string, source: 'CATALOG' | 'UPLOAD' = 'CATALOG') => ({ pluginId, name, source });

  it('names catalog plugins with no version for the target platform and game version, and those the catalog no longer lists', () => {
    const names = incompatiblePlugins([installed('fits', 'Fits'), installed('old', 'Old'), installed('wrong-platform', 'Velo'), installed('gone', 'Gone')], (id) => feed.get(id), target);
    expect(names).to.deep.equal(['Old', 'Velo', 'Gone']);
  });

  it('leaves uploaded jars alone: they declare nothing to check', () => {
    expect(incompatiblePlugins([installed('upload:X', 'X', 'UPLOAD')], (id) => feed.get(id), target)).to.deep.equal([]);
  });
});

describe('a start that ended before its ready line, as UPDATE_FAILED says it (pure)', () => {
  const at = '2026-01-01T00:00:00.000Z';

  it('names how the process ended and the last line it printed, cut to 200 characters', () => {
    const crash = { at, exitCode: 1, lastLines: ['Starting', 'Error: LinkageError occurred while loading main class io.papermc.paperclip.Main'] };
    expect(exitedBeforeReady(crash)).to.equal('the server exited before it was ready (exit code 1); its last line: Error: LinkageError occurred while loading main class io.papermc.paperclip.Main');
    expect(exitedBeforeReady({ at, signal: 'SIGSEGV', lastLines: ['x'.repeat(300)] })).to.equal(`the server exited before it was ready (ended by SIGSEGV); its last line: ${'x'.repeat(200)}…`);
    expect(exitedBeforeReady({ at, signal: 'SIGKILL', reason: 'OOM_KILLED', lastLines: [] })).to.equal('the server exited before it was ready (killed at its memory limit)');
  });

  it('without a crash report (a Controller restarted since) says what it knows', () => {
    expect(exitedBeforeReady(undefined)).to.equal('the server exited before it was ready');
  });
});
