import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractArchive } from '../../src/agent/files/archives/extract.js';
import { isAgentError } from '../../src/agent/errors.js';
import { tarOf, zipBomb, zipOf, zipWithRenamedEntry } from '../support/archive-builders.js';

/** Every path under `dir`, so a test sees anything written anywhere in its sandbox. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe('Agent archive extraction: hostile archives', function () {
  this.timeout(60_000);
  let sandbox: string;
  let root: string;
  const progress = () => undefined;

  beforeEach(async () => {
    sandbox = await mkdtemp(join(tmpdir(), 'cairn-extract-'));
    root = join(sandbox, 'srv', 'root');
    await mkdir(root, { recursive: true });
  });
  afterEach(() => rm(sandbox, { recursive: true, force: true }));

  async function refusal(name: string, archive: Buffer, room?: number): Promise<{ code: string; message: string }> {
    await writeFile(join(root, name), archive);
    const before = await tree(sandbox);
    try {
      await extractArchive({ root, path: name, into: 'out', progress, ...(room === undefined ? {} : { room }) });
    } catch (e) {
      if (!isAgentError(e)) throw e;
      // Only the directory it extracts into may have been made; nothing else, inside or out.
      expect((await tree(sandbox)).filter((p) => !p.startsWith('srv/root/out'))).to.deep.equal(before);
      return { code: e.code, message: e.message };
    }
    throw new Error('the archive was extracted');
  }

  it('extracts a plain zip and tar.gz into the directory given', async () => {
    await writeFile(join(root, 'a.zip'), await zipOf({ 'world/': '', 'world/level.dat': 'level', 'readme.txt': 'hi' }));
    const written: string[] = [];
    const done = await extractArchive({ root, path: 'a.zip', into: 'x', progress: (p) => written.push(p) });
    expect(done).to.deep.equal({ bytes: 7, entries: 3 });
    expect(written).to.deep.equal(['x/world', 'x/world/level.dat', 'x/readme.txt']);
    expect(await readFile(join(root, 'x/world/level.dat'), 'utf8')).to.equal('level');
    await writeFile(join(root, 'b.tar.gz'), await tarOf([{ name: 'd', type: 'directory' }, { name: 'd/f.txt', content: 'tar!' }], true));
    await extractArchive({ root, path: 'b.tar.gz', into: '.', progress });
    expect(await readFile(join(root, 'd/f.txt'), 'utf8')).to.equal('tar!');
  });

  // Made once with Debian's zstd (`zstd -19`) from tars of archive-builders.ts: no zstd encoder is on npm that the Agent uses.
  it('extracts a tar.zst, and refuses one with an entry leading out', async () => {
    const fixtures = join(import.meta.dirname, '..', 'fixtures', 'archives');
    await writeFile(join(root, 'w.tar.zst'), await readFile(join(fixtures, 'world.tar.zst')));
    expect(await extractArchive({ root, path: 'w.tar.zst', into: 'z', progress })).to.deep.equal({ bytes: 20, entries: 3 });
    expect(await readFile(join(root, 'z/world/level.dat'), 'utf8')).to.equal('zstd level');
    expect(await readFile(join(root, 'z/server.properties'), 'utf8')).to.equal('motd=zstd\n');
    const { message } = await refusal('e.tar.zst', await readFile(join(fixtures, 'escape.tar.zst')));
    expect(message).to.include('../../etc/passwd');
  });

  it('refuses a zip entry ../../etc/passwd, naming it, before writing anything', async () => {
    const r = await refusal('up.zip', await zipWithRenamedEntry('aa/bb/etc/passwd', '../../etc/passwd'));
    expect(r.message).to.contain('../../etc/passwd');
    expect(await tree(root)).to.deep.equal(['up.zip']);
  });

  it('refuses a tar entry ../../etc/passwd', async () => {
    const r = await refusal('up.tar', await tarOf([{ name: 'ok.txt', content: 'fine' }, { name: '../../etc/passwd', content: 'root::0:0' }]));
    expect(r.message).to.contain('../../etc/passwd');
  });

  it('refuses an absolute path, in a zip and in a tar', async () => {
    expect((await refusal('abs.zip', await zipWithRenamedEntry('xetc/passwd', '/etc/passwd'))).message).to.contain('/etc/passwd');
    expect((await refusal('abs.tar', await tarOf([{ name: '/etc/passwd', content: 'x' }]))).message).to.contain('/etc/passwd');
  });

  it('refuses a symlink entry to /, in a tar and in a zip', async () => {
    const t = await refusal('link.tar', await tarOf([{ name: 'escape', type: 'symlink', linkname: '/' }, { name: 'escape/etc/passwd', content: 'x' }]));
    expect(t.message).to.match(/entry "escape": is a link/);
    const z = await refusal('link.zip', await zipOf({ escape: '/' }, { escape: 0o120777 }));
    expect(z.message).to.match(/entry "escape": is a link/);
  });

  it('refuses a hard link entry', async () => {
    const r = await refusal('hard.tar', await tarOf([{ name: 'a', content: 'x' }, { name: 'b', type: 'link', linkname: '/etc/shadow' }]));
    expect(r.message).to.match(/entry "b": is a link/);
  });

  it('refuses a tar with a device node and one with a FIFO', async () => {
    const dev = await refusal('dev.tar', await tarOf([{ name: 'null', type: 'character-device', devmajor: 1, devminor: 3 }]));
    expect(dev.message).to.match(/entry "null": is a device/);
    const fifo = await refusal('fifo.tar', await tarOf([{ name: 'pipe', type: 'fifo' }]));
    expect(fifo.message).to.match(/entry "pipe": is a device, FIFO/);
  });

  it('refuses a NUL in an entry name', async () => {
    const z = await refusal('nul.zip', await zipWithRenamedEntry('aXb.txt', 'a\u0000b.txt'));
    expect(z.code).to.equal('INVALID_PATH');
    expect(z.message).to.contain('control characters');
    const t = await refusal('nul.tar', await tarOf([{ name: 'c\u0001d', content: 'x' }]));
    expect(t.message).to.contain('control characters');
  });

  it('refuses a zip bomb (1 GiB of zeros) by its declared size without writing it', async () => {
    const bomb = zipBomb();
    expect(bomb.length).to.be.below(2 * 1024 * 1024);
    const started = Date.now();
    const r = await refusal('bomb.zip', bomb, 64 * 1024 * 1024);
    expect(r.code).to.equal('DISK_QUOTA_EXCEEDED');
    expect(Date.now() - started).to.be.below(2_000);
    expect(await tree(root)).to.deep.equal(['bomb.zip']);
  });

  it('stops a tar.gz over the room as it streams, leaving no half file', async () => {
    const big = 'z'.repeat(4096);
    const r = await refusal('big.tar.gz', await tarOf([{ name: 'a.txt', content: big }, { name: 'b.txt', content: big }], true), 6000);
    expect(r.code).to.equal('DISK_QUOTA_EXCEEDED');
    expect(await tree(join(root, 'out'))).to.deep.equal(['a.txt']);
  });

  it('refuses writing into .cairn, naming the entry', async () => {
    await writeFile(join(root, 'c.tar'), await tarOf([{ name: '.cairn/evil.jar', content: 'x' }]));
    const e = await extractArchive({ root, path: 'c.tar', into: '.', progress }).catch((err: unknown) => err);
    expect(isAgentError(e) && e.code).to.equal('READ_ONLY');
    expect((e as Error).message).to.contain('.cairn/evil.jar');
  });
});
