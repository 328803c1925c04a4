import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAgentError } from '../../src/agent/errors.js';
import { extractArchive } from '../../src/agent/files/archives/extract.js';
import { tarOf, zipBomb, zipOf, zipWithRenamedEntry, type TarEntry } from '../support/archive-builders.js';
import { gzipOf, tarFormats, zerosTar, zstdOf } from '../support/compressed-archives.js';

async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

type Format = 'zip' | keyof typeof tarFormats;

/**
 * Each hostile archive of issue 46 in every format that can carry it: the job's refusal names the
 * entry and nothing lands outside `out` (nor, for an entry refused before any other, inside it).
 * A tar cannot hold a NUL in its fixed name field (NUL ends it), so it carries the name in a PAX
 * record, as a crafted archive would; a zip marks a device by its Unix mode.
 */
const cases: { name: string; entries: TarEntry[]; zip: () => Promise<Buffer>; named: string; why: RegExp; code?: string }[] = [
  {
    name: '../../etc/passwd', entries: [{ name: '../../etc/passwd', content: 'root::0:0\n' }],
    zip: () => zipWithRenamedEntry('aa/bb/etc/passwd', '../../etc/passwd'), named: '../../etc/passwd', why: /`\.\.` is not allowed|invalid relative path/,
  },
  {
    name: 'a symlink entry to /', entries: [{ name: 'escape', type: 'symlink', linkname: '/' }, { name: 'escape/etc/passwd', content: 'x' }],
    zip: () => zipOf({ escape: '/' }, { escape: 0o120777 }), named: 'escape', why: /is a link/,
  },
  {
    name: 'a device node', entries: [{ name: 'null', type: 'character-device', devmajor: 1, devminor: 3 }],
    zip: () => zipOf({ null: '' }, { null: 0o020644 }), named: 'null', why: /is a device/,
  },
  {
    name: 'a path with NUL', entries: [{ name: 'ab.txt', pax: { path: 'a\u0000b.txt' }, content: 'x' }],
    zip: () => zipWithRenamedEntry('aXb.txt', 'a\u0000b.txt'), named: 'a\u0000b.txt', why: /control characters/, code: 'INVALID_PATH',
  },
];

describe('Agent archive extraction: each hostile archive in zip, tar, tar.gz and tar.zst', function () {
  this.timeout(60_000);
  let sandbox: string;
  let root: string;

  beforeEach(async () => {
    sandbox = await mkdtemp(join(tmpdir(), 'cairn-hostile-'));
    root = join(sandbox, 'srv', 'root');
    await mkdir(root, { recursive: true });
  });
  afterEach(() => rm(sandbox, { recursive: true, force: true }));

  async function refusal(file: string, archive: Buffer, room?: number): Promise<{ code: string; message: string }> {
    await writeFile(join(root, file), archive);
    const before = await tree(sandbox);
    try {
      await extractArchive({ root, path: file, into: 'out', progress: () => undefined, ...(room === undefined ? {} : { room }) });
    } catch (e) {
      if (!isAgentError(e)) throw e;
      const after = await tree(sandbox);
      expect(after.filter((p) => !p.startsWith('srv/root/out')), 'nothing written outside the directory extracted into').to.deep.equal(before);
      expect(after.filter((p) => p.startsWith('srv/root/out/')), 'nor inside it').to.deep.equal([]);
      return { code: e.code, message: e.message };
    }
    throw new Error(`${file} was extracted`);
  }

  for (const c of cases) {
    for (const format of ['zip', 'tar', 'tar.gz', 'tar.zst'] as Format[]) {
      it(`refuses ${c.name} in a ${format}, naming the entry`, async () => {
        const archive = format === 'zip' ? await c.zip() : tarFormats[format](await tarOf(c.entries));
        const r = await refusal(`hostile.${format}`, archive);
        expect(r.message).to.contain(JSON.stringify(c.named).slice(1, -1));
        expect(r.message).to.match(c.why);
        if (c.code) expect(r.code).to.equal(c.code);
      });
    }
  }

  // A plain tar does not compress: its 1 GiB is 1 GiB (and refused by its declared size all the same).
  const bombs: Record<Exclude<Format, 'tar'>, () => Promise<Buffer>> = {
    zip: () => Promise.resolve(zipBomb()),
    'tar.gz': async () => gzipOf(await zerosTar('zeros.bin', 1024 ** 3)),
    'tar.zst': async () => zstdOf(await zerosTar('zeros.bin', 1024 ** 3)),
  };
  for (const format of ['zip', 'tar.gz', 'tar.zst'] as const) {
    it(`refuses a ${format} bomb (1 GiB of zeros in about 1 MiB) at once, writing nothing`, async () => {
      const bomb = await bombs[format]();
      expect(bomb.length).to.be.below(2 * 1024 * 1024);
      const started = Date.now();
      const r = await refusal(`bomb.${format}`, bomb, 64 * 1024 * 1024);
      expect(r.code).to.equal('DISK_QUOTA_EXCEEDED');
      expect(r.message).to.contain(String(1024 ** 3));
      // Refused by the declared size, before inflating: far from the seconds 1 GiB would take.
      expect(Date.now() - started).to.be.below(5_000);
    });
  }

  it('the builders are sound: a gzip and a zstd tar of zeros extract whole when there is room', async () => {
    for (const [format, build] of [['tar.gz', gzipOf], ['tar.zst', zstdOf]] as const) {
      await writeFile(join(root, `z.${format}`), build(await zerosTar('zeros.bin', 3 * 1024 * 1024 + 5)));
      const done = await extractArchive({ root, path: `z.${format}`, into: format, progress: () => undefined });
      expect(done).to.deep.equal({ bytes: 3 * 1024 * 1024 + 5, entries: 1 });
    }
  });
});
