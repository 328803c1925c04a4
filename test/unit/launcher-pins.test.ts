import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListedVersionRecord } from '../../src/controller/schemas/software.js';
import { LauncherPins, PinFailure } from '../../src/controller/services/software/launcher-pins.js';
import { openStore } from '../../src/controller/store/open-store.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import { silentLogger } from '../../src/shared/logger.js';

const clock = { now: () => new Date('2026-11-29T12:00:00.000Z') };
const url = (loader: string, installer: string) => `http://meta.test/v2/versions/loader/1.21.4/${loader}/${installer}/server/jar`;
const listing = (installer: string): ListedVersionRecord[] => [{
  version: '1.21.4', latestBuild: '0.16.10', installer,
  builds: ['0.16.10', '0.16.9'].map((id) => ({ id, channel: 'STABLE', download: { url: url(id, installer) } })),
  download: { url: 'https://piston-data.mojang.com/server.jar', sha1: 'a'.repeat(40) },
}];

describe('Fabric launcher pins: the sha256 of the first download per game, loader and installer', () => {
  let dir: string;
  let repos: Repositories;
  const fetched: string[] = [];
  const store = {
    pinDownload: (at: string) => {
      fetched.push(at);
      if (at.includes('0.16.9')) return Promise.reject(new Error(`HTTP 404 from ${at}`));
      return Promise.resolve({ sha256: String(fetched.length).repeat(64), size: 100 + fetched.length });
    },
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-pins-'));
    repos = await openStore({ dataDir: dir, clock });
    fetched.length = 0;
  });
  afterEach(async () => {
    await repos.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('pins a launcher once, gives its build the sha256 and size, and keeps the pin across a restart', async () => {
    const pins = new LauncherPins({ repos, clock, logger: silentLogger }, store);
    await pins.load();
    expect(pins.applyTo(listing('1.0.1'))[0].builds![0].download).to.deep.equal({ url: url('0.16.10', '1.0.1') });
    await Promise.all([pins.pin('1.21.4', '0.16.10', '1.0.1', url('0.16.10', '1.0.1')), pins.pin('1.21.4', '0.16.10', '1.0.1', url('0.16.10', '1.0.1'))]);
    expect(fetched).to.deep.equal([url('0.16.10', '1.0.1')]);
    const pinned = { url: url('0.16.10', '1.0.1'), sha256: '1'.repeat(64), size: 101, pinnedAt: '2026-11-29T12:00:00.000Z' };
    const [applied] = pins.applyTo(listing('1.0.1'));
    expect(applied.builds![0]).to.deep.include({ sha256: pinned.sha256, size: 101, download: pinned });
    expect(applied.builds![1].download).to.deep.equal({ url: url('0.16.9', '1.0.1') });

    const restarted = new LauncherPins({ repos, clock, logger: silentLogger }, store);
    await restarted.load();
    expect(restarted.applyTo(listing('1.0.1'))[0].builds![0].download).to.deep.equal(pinned);
  });

  it('keeps a build pinned under an older installer on that launcher once Fabric lists a newer installer', async () => {
    const pins = new LauncherPins({ repos, clock, logger: silentLogger }, store);
    await pins.load();
    await pins.pin('1.21.4', '0.16.10', '1.0.1', url('0.16.10', '1.0.1'));
    expect(pins.applyTo(listing('1.1.0'))[0].builds![0].download).to.deep.include({ url: url('0.16.10', '1.0.1'), sha256: '1'.repeat(64) });
  });

  it('a launcher that cannot be fetched is not pinned and says why', async () => {
    const pins = new LauncherPins({ repos, clock, logger: silentLogger }, store);
    await pins.load();
    try {
      await pins.pin('1.21.4', '0.16.9', '1.0.1', url('0.16.9', '1.0.1'));
      expect.fail('pinned a launcher that could not be fetched');
    } catch (e) {
      expect(e).to.be.instanceOf(PinFailure);
      expect((e as Error).message).to.equal(`the Controller could not fetch Fabric's server launcher: HTTP 404 from ${url('0.16.9', '1.0.1')}`);
    }
    expect(pins.applyTo(listing('1.0.1'))[0].builds![1].download).to.deep.equal({ url: url('0.16.9', '1.0.1') });
  });
});
