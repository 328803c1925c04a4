import { expect } from 'chai';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepAllUploadTemps, sweepUploadTemps } from '../../src/agent/files/upload-sweep.js';
import { serverRoot } from '../../src/agent/reconciler/server-paths.js';
import { scanTree } from '../../src/shared/backup/scan.js';
import { silentLogger } from '../../src/shared/logger.js';

const temp = (n: number) => `.cairn-upload-${n}0000000-0000-4000-8000-000000000000`;

describe('upload temporaries left by an Agent killed mid-upload', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-sweep-'));
    root = serverRoot(base, 's1');
    outside = join(base, 'outside');
    await mkdir(join(root, 'world', 'region'), { recursive: true });
    await mkdir(join(root, '.cairn'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(outside, temp(9)), 'canary');
    await writeFile(join(root, 'world', 'level.dat'), 'level');
    await writeFile(join(root, 'world', temp(1)), 'half an upload');
    await writeFile(join(root, 'world', 'region', temp(2)), 'half an upload');
    await writeFile(join(root, temp(3)), 'half an upload');
    await writeFile(join(root, 'cairn-upload-not-ours'), 'kept');
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('are removed at start in every directory of every server, other files kept', async () => {
    await mkdir(join(serverRoot(base, 's2'), 'deep', 'er'), { recursive: true });
    await writeFile(join(serverRoot(base, 's2'), 'deep', 'er', temp(4)), 'x');
    await sweepAllUploadTemps(base, silentLogger);
    expect((await readdir(join(root, 'world'))).sort()).to.deep.equal(['level.dat', 'region']);
    expect(await readdir(join(root, 'world', 'region'))).to.deep.equal([]);
    expect((await readdir(root)).sort()).to.deep.equal(['.cairn', 'cairn-upload-not-ours', 'world']);
    expect(await readdir(join(serverRoot(base, 's2'), 'deep', 'er'))).to.deep.equal([]);
  });

  it('a symlink named like a temporary is removed as a link; a symlinked directory is not walked', async () => {
    await symlink(join(outside, temp(9)), join(root, 'world', temp(5)));
    await symlink(outside, join(root, 'world', 'elsewhere'));
    expect(await sweepUploadTemps(root)).to.equal(4);
    expect(await readFile(join(outside, temp(9)), 'utf8')).to.equal('canary');
    expect((await lstat(join(root, 'world', 'elsewhere'))).isSymbolicLink()).to.equal(true);
    expect((await readdir(join(root, 'world'))).sort()).to.deep.equal(['elsewhere', 'level.dat', 'region']);
  });

  it('a server without a root yet is no error', async () => {
    await mkdir(join(base, 'servers', 's3'));
    await sweepAllUploadTemps(base, silentLogger);
    expect(await sweepUploadTemps(join(base, 'servers', 'none', 'root'))).to.equal(0);
  });

  it('are never part of a backup', async () => {
    const paths = (await scanTree(root)).map((e) => e.path);
    expect(paths).to.deep.equal(['cairn-upload-not-ours', 'world', 'world/level.dat', 'world/region']);
  });
});
