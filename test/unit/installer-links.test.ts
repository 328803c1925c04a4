import { expect } from 'chai';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInRoot } from '../../src/agent/operations/root-files.js';
import { prepareCairnDir } from '../../src/agent/reconciler/installer.js';

describe('installer: links the game left in its directory are never written through', () => {
  let dir: string;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-installer-'));
    root = join(dir, 'root');
    outside = join(dir, 'outside');
    await mkdir(root);
    await mkdir(outside);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a `.cairn` the game replaced with a link is replaced by a directory; the link\'s target is left alone', async () => {
    await writeFile(join(outside, 'keep'), 'x');
    await symlink(outside, join(root, '.cairn'));
    expect(await prepareCairnDir(root)).to.equal(join(root, '.cairn'));
    expect((await lstat(join(root, '.cairn'))).isDirectory()).to.equal(true);
    expect(await readdir(outside)).to.deep.equal(['keep']);
  });

  it('a seed file\'s directory swapped for a link out is refused; nothing lands outside', async () => {
    await symlink(outside, join(root, 'config'));
    const refused = await createInRoot(root, 'config/seed.txt', 'seed').then(() => false, () => true);
    expect(refused).to.equal(true);
    expect(await readdir(outside)).to.deep.equal([]);
  });

  it('a seed file is written when absent (its directories made), and never overwrites the game\'s or follows a link by its name', async () => {
    await createInRoot(root, 'config/deep/seed.txt', 'seed');
    expect(await readFile(join(root, 'config', 'deep', 'seed.txt'), 'utf8')).to.equal('seed');
    await writeFile(join(root, 'mine.txt'), 'the game\'s');
    await createInRoot(root, 'mine.txt', 'seed');
    expect(await readFile(join(root, 'mine.txt'), 'utf8')).to.equal('the game\'s');
    await symlink(join(outside, 'planted'), join(root, 'linked.txt'));
    await createInRoot(root, 'linked.txt', 'seed');
    expect(await readdir(outside)).to.deep.equal([]);
  });
});
