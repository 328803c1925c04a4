import { expect } from 'chai';
import { chmod, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tightenTree } from '../../src/shared/private-dir.js';

describe('data dirs: what an earlier version wrote is narrowed to 0600 files and 0700 directories', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cairn-private-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));
  const modeOf = async (path: string) => (await lstat(path)).mode & 0o777;

  it('narrows the store\'s 0644 files and 0755 directories, keeps what is already narrower, and never follows a link', async () => {
    const store = join(dir, 'store');
    await mkdir(join(store, 'audit'), { recursive: true });
    await writeFile(join(store, 'settings.db'), 'signing key');
    await writeFile(join(store, 'audit', 'day.log'), 'events');
    await writeFile(join(store, 'already.db'), 'x', { mode: 0o400 });
    const outside = join(dir, 'outside');
    await writeFile(outside, 'not ours');
    await chmod(outside, 0o644);
    await symlink(outside, join(store, 'link'));
    await chmod(join(store, 'settings.db'), 0o644);
    await chmod(join(store, 'audit'), 0o755);
    expect(await tightenTree(store)).to.be.greaterThan(0);
    expect(await modeOf(join(store, 'settings.db'))).to.equal(0o600);
    expect(await modeOf(join(store, 'audit'))).to.equal(0o700);
    expect(await modeOf(join(store, 'audit', 'day.log'))).to.equal(0o600);
    expect(await modeOf(join(store, 'already.db'))).to.equal(0o400);
    expect(await modeOf(outside)).to.equal(0o644);
    expect(await tightenTree(store)).to.equal(0);
  });
});
