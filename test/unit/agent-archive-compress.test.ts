import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compressArchive } from '../../src/agent/files/archives/compress.js';
import { extractArchive } from '../../src/agent/files/archives/extract.js';

describe('Agent archive compression', () => {
  let sandbox: string;
  let root: string;
  const progress = () => undefined;

  beforeEach(async () => {
    sandbox = await mkdtemp(join(tmpdir(), 'cairn-compress-'));
    root = join(sandbox, 'root');
    await mkdir(join(root, 'world/region'), { recursive: true });
    await writeFile(join(root, 'world/level.dat'), 'level');
    await writeFile(join(root, 'world/region/r.0.0.mca'), Buffer.alloc(100_000, 7));
    await writeFile(join(root, 'world/empty.txt'), '');
    await writeFile(join(sandbox, 'outside.txt'), 'secret');
    await symlink(join(sandbox, 'outside.txt'), join(root, 'world/leak'));
  });
  afterEach(() => rm(sandbox, { recursive: true, force: true }));

  for (const name of ['w.zip', 'w.tar', 'w.tar.gz']) {
    it(`writes ${name} and reads it back, links left out`, async () => {
      const made = await compressArchive({ root, paths: ['world'], into: name, progress });
      expect(made.entries).to.equal(5);
      await extractArchive({ root, path: name, into: 'copy', progress });
      expect(await readFile(join(root, 'copy/world/level.dat'), 'utf8')).to.equal('level');
      expect(await readFile(join(root, 'copy/world/region/r.0.0.mca'))).to.deep.equal(Buffer.alloc(100_000, 7));
      expect(await readFile(join(root, 'copy/world/empty.txt'), 'utf8')).to.equal('');
      expect(await readFile(join(root, 'copy/world/leak')).catch(() => 'absent')).to.equal('absent');
    });
  }

  it('refuses an archive that exists, and stops at the room', async () => {
    await writeFile(join(root, 'taken.zip'), 'x');
    const taken = await compressArchive({ root, paths: ['world'], into: 'taken.zip', progress }).catch((e: unknown) => e);
    expect((taken as { code: string }).code).to.equal('ALREADY_EXISTS');
    const full = await compressArchive({ root, paths: ['world'], into: 'full.tar', progress, room: 10_000 }).catch((e: unknown) => e);
    expect((full as { code: string }).code).to.equal('DISK_QUOTA_EXCEEDED');
    expect(await readFile(join(root, 'full.tar')).catch(() => 'absent')).to.equal('absent');
  });
});
