import { expect } from 'chai';
import { link, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeBytes } from '../../src/agent/disk/tree-walker.js';

const MiB = 2 ** 20;

describe('treeBytes: what a server\'s tree holds on disk (walked on the walker\'s thread)', () => {
  let dir: string;
  let outside: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-tree-bytes-'));
    outside = await mkdtemp(join(tmpdir(), 'cairn-tree-outside-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('counts the blocks of files in nested directories, and 0 for a missing root', async () => {
    await mkdir(join(dir, 'world', 'region'), { recursive: true });
    await writeFile(join(dir, 'world', 'region', 'r.0.0.mca'), Buffer.alloc(3 * MiB, 1));
    const bytes = await treeBytes(dir);
    expect(bytes).to.be.at.least(3 * MiB).and.below(3 * MiB + 64 * 1024);
    expect(await treeBytes(join(dir, 'missing'))).to.equal(0);
  });

  it('follows no symlink and counts a hard-linked file once', async () => {
    await writeFile(join(outside, 'big'), Buffer.alloc(4 * MiB, 1));
    await symlink(outside, join(dir, 'escape'));
    await writeFile(join(dir, 'a'), Buffer.alloc(MiB, 1));
    await link(join(dir, 'a'), join(dir, 'b'));
    const fileBlocks = (await stat(join(dir, 'a'))).blocks * 512;
    expect(await treeBytes(dir)).to.be.at.least(fileBlocks).and.below(fileBlocks + 64 * 1024);
  });

  it('a walk that fails says why (its error and code), and the walks after it go on', async () => {
    const failed = await treeBytes(join(dir, 'a\0b')).then(() => undefined, (e: unknown) => e as NodeJS.ErrnoException);
    expect(failed?.code).to.equal('ERR_INVALID_ARG_VALUE');
    await writeFile(join(dir, 'a'), Buffer.alloc(MiB, 1));
    const walks = await Promise.all(Array.from({ length: 20 }, () => treeBytes(dir)));
    expect(new Set(walks).size).to.equal(1);
    expect(walks[0]).to.be.at.least(MiB);
  });
});
