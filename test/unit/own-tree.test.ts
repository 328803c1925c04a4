import { expect } from 'chai';
import { lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownTree } from '../../src/agent/isolation/own-tree.js';

// lchown to another uid needs root (CI and these machines run as root).
const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('containment: a server\'s files become its identity\'s', () => {
  const identity = { uid: 200_777, gid: 200_777 };
  let dir: string;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-own-'));
    root = join(dir, 'root');
    outside = join(dir, 'outside');
    await mkdir(join(root, 'world', 'region'), { recursive: true });
    await writeFile(join(root, 'world', 'region', 'r.0.0.mca'), 'x');
    await mkdir(join(root, '.cairn'));
    await mkdir(outside);
    await writeFile(join(outside, 'host-file'), 'x');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('gives every entry but .cairn to the identity, counts the changes, and never follows a link out', async () => {
    await symlink(outside, join(root, 'world', 'out'));
    expect(await ownTree(root, identity)).to.equal(5);
    for (const path of ['', 'world', 'world/region', 'world/region/r.0.0.mca']) expect((await stat(join(root, path))).uid, path).to.equal(identity.uid);
    expect((await lstat(join(root, 'world', 'out'))).uid, 'the link itself').to.equal(identity.uid);
    expect((await stat(join(root, '.cairn'))).uid).to.equal(0);
    expect((await stat(outside)).uid).to.equal(0);
    expect((await stat(join(outside, 'host-file'))).uid).to.equal(0);
    expect(await ownTree(root, identity), 'owned already: only looked at').to.equal(0);
  });
});
