import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobEncoder } from '../../src/shared/backup/blob-encoding.js';
import { collectGarbage, ChecksumMismatchError } from '../../src/shared/backup/blob-store.js';
import { FsBlobStore } from '../../src/shared/backup/fs-blob-store.js';
import { checkManifestPath, manifestDelta, type ManifestEntry } from '../../src/shared/backup/manifest.js';
import { HashCache, scanTree } from '../../src/shared/backup/scan.js';
import { backupTree } from '../../src/shared/backup/tree-backup.js';
import { restoreTree } from '../../src/shared/backup/tree-restore.js';

const at = '2026-11-23T00:00:00.000Z';
const file = (path: string, sha256 = 'a'.repeat(64), mode = 0o644): ManifestEntry => ({ path, type: 'FILE', size: 1, mode, sha256 });
const dir = (path: string): ManifestEntry => ({ path, type: 'DIRECTORY', size: 0, mode: 0o755, sha256: '' });

describe('the content-addressed backup store', () => {
  let base: string;
  let world: string;
  let store: FsBlobStore;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-store-'));
    world = join(base, 'world');
    store = new FsBlobStore(join(base, 'store'));
    await mkdir(join(world, 'region'), { recursive: true });
    await mkdir(join(world, '.cairn'));
    await writeFile(join(world, '.cairn', 'server.jar'), 'software');
    for (let i = 0; i < 100; i++) await writeFile(join(world, 'region', `r.${i}.mca`), randomBytes(16 * 1024));
    await writeFile(join(world, 'server.properties'), 'motd=hi\n', { mode: 0o600 });
  });

  afterEach(() => rm(base, { recursive: true, force: true }));

  it('lists files and directories in path order without .cairn', async () => {
    const entries = await scanTree(world);
    expect(entries[0]).to.deep.include({ path: 'region', type: 'DIRECTORY' });
    expect(entries.map((e) => e.path)).to.not.include('.cairn');
    expect(entries.find((e) => e.path === 'server.properties')).to.deep.include({ type: 'FILE', size: 8, mode: 0o600 });
    expect(entries.filter((e) => e.type === 'FILE')).to.have.length(101);
  });

  it('hashes each file by its own bytes, whatever the sizes of the files hashed before it', async () => {
    const sizes = { 'a-large.bin': 2.5 * 1024 * 1024, 'b-empty.bin': 0, 'c-small.bin': 3, 'd-exact.bin': 1024 * 1024, 'e-medium.bin': 70_000 };
    const contents = Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, randomBytes(size)]));
    for (const [name, content] of Object.entries(contents)) await writeFile(join(world, name), content);
    const entries = await scanTree(world);
    for (const [name, content] of Object.entries(contents)) {
      expect(entries.find((e) => e.path === name)?.sha256, name).to.equal(createHash('sha256').update(content).digest('hex'));
    }
  });

  it('a second backup after 1% of the files changed stores under 5% of the bytes again', async () => {
    const first = await backupTree(world, store, 'one', at);
    expect(first.fileCount).to.equal(101);
    expect(first.storedBytes).to.be.greaterThan(first.sizeBytes * 0.9);
    await writeFile(join(world, 'region', 'r.7.mca'), randomBytes(16 * 1024));
    const second = await backupTree(world, store, 'two', at, new HashCache());
    expect(second.sizeBytes).to.equal(first.sizeBytes);
    expect(second.storedBytes).to.be.greaterThan(0).and.lessThan(second.sizeBytes * 0.05);
  });

  it('restores a backup byte for byte with its modes, and refuses a damaged blob', async () => {
    const { manifest } = await backupTree(world, store, 'one', at);
    const target = join(base, 'restored');
    await restoreTree(store, manifest, target);
    expect(await readFile(join(target, 'region', 'r.3.mca'))).to.deep.equal(await readFile(join(world, 'region', 'r.3.mca')));
    expect((await stat(join(target, 'server.properties'))).mode & 0o777).to.equal(0o600);
    expect(await readdir(target)).to.not.include('.cairn');

    const victim = manifest.entries.find((e) => e.path === 'server.properties')!;
    const blobDir = join(base, 'store', 'blobs', victim.sha256.slice(0, 2));
    await pipeline(Readable.from([Buffer.from('motd=evil\n')]), new BlobEncoder(), createWriteStream(join(blobDir, `${victim.sha256}.blob`)));
    const again = join(base, 'again');
    let error: unknown;
    await restoreTree(store, manifest, again).catch((e: unknown) => { error = e; });
    expect(error).to.be.instanceOf(ChecksumMismatchError);
  });

  it('compresses a blob only when that pays, and reads either back', async () => {
    const random = randomBytes(300 * 1024);
    const text = Buffer.from('a line of a config file that repeats\n'.repeat(10_000));
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(await store.putBlob(sha(random), Readable.from([random]))).to.equal(random.length + 1);
    expect(await store.putBlob(sha(text), Readable.from([text.subarray(0, 1000), text.subarray(1000)]))).to.be.lessThan(text.length / 10);
    for (const b of [random, text]) {
      const parts: Buffer[] = [];
      for await (const p of store.readBlob(sha(b))) parts.push(p as Buffer);
      expect(Buffer.concat(parts).equals(b)).to.equal(true);
    }
  });

  it('fails the read of a stored gzip blob that does not inflate, as an error of the stream (never one of the process)', async () => {
    const text = Buffer.from('a line of a config file that repeats\n'.repeat(10_000));
    const sha = createHash('sha256').update(text).digest('hex');
    await store.putBlob(sha, Readable.from([text]));
    const path = join(base, 'store', 'blobs', sha.slice(0, 2), `${sha}.blob`);
    await writeFile(path, Buffer.concat([Buffer.from([0x47]), randomBytes(5000)]));
    let error: unknown;
    await (async () => {
      for await (const part of store.readBlob(sha)) expect(part).to.be.instanceOf(Buffer);
    })().catch((e: unknown) => { error = e; });
    expect(error).to.be.instanceOf(Error);
    expect((error as NodeJS.ErrnoException).code).to.equal('Z_DATA_ERROR');
  });

  it('refuses a blob whose content is not its name and stores nothing', async () => {
    let error: unknown;
    await store.putBlob('b'.repeat(64), Readable.from([Buffer.from('x')])).catch((e: unknown) => { error = e; });
    expect(error).to.be.instanceOf(ChecksumMismatchError);
    expect(await store.hasBlob('b'.repeat(64))).to.equal(false);
  });

  it('stores content whose hash nobody knew under the sha256 of what arrived, once however often it comes, and leaves no temporary file', async () => {
    const content = randomBytes(300 * 1024);
    const sha256 = createHash('sha256').update(content).digest('hex');
    const puts = await Promise.all([1, 2, 3].map(() => store.putUnnamedBlob(Readable.from([content.subarray(0, 1000), content.subarray(1000)]))));
    for (const put of puts) expect(put).to.include({ sha256, size: content.length });
    expect(await store.putUnnamedBlob(Readable.from([content]))).to.deep.equal({ sha256, size: content.length, storedBytes: 0 });
    expect(Buffer.concat(await store.readBlob(sha256).toArray())).to.deep.equal(content);
    const names = await readdir(join(base, 'store', 'blobs'), { recursive: true });
    expect(names.filter((n) => n.endsWith('.partial'))).to.deep.equal([]);
    expect(names.filter((n) => n.endsWith('.blob'))).to.deep.equal([`${sha256.slice(0, 2)}/${sha256}.blob`]);
  });

  it('leaves nothing of an unnamed put whose content failed midway, and collects a temporary file a crash left', async () => {
    async function* broken() {
      yield Buffer.from('half a blob');
      throw new Error('the link went');
    }
    let error: unknown;
    await store.putUnnamedBlob(broken()).catch((e: unknown) => { error = e; });
    expect((error as Error).message).to.equal('the link went');
    expect(await readdir(join(base, 'store', 'blobs'))).to.deep.equal([]);
    const left = join(base, 'store', 'blobs', 'left-by-a-crash.partial');
    await writeFile(left, 'x');
    await utimes(left, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    expect(await store.removePartials(3600_000)).to.equal(1);
    expect(await readdir(join(base, 'store', 'blobs'))).to.deep.equal([]);
  });

  it('collects the blobs no manifest references once a backup is deleted', async () => {
    await backupTree(world, store, 'one', at);
    await writeFile(join(world, 'region', 'r.1.mca'), randomBytes(1024));
    await backupTree(world, store, 'two', at);
    expect(await collectGarbage(store)).to.equal(0);
    await store.deleteManifest('one');
    expect(await collectGarbage(store)).to.equal(1);
    await store.deleteManifest('two');
    expect(await collectGarbage(store)).to.equal(101);
  });

  it('the delta copies changed files, creates new directories and removes the topmost gone paths', () => {
    const have = [dir('a'), file('a/x'), file('a/y'), file('b', 'b'.repeat(64)), file('c')];
    const want = [dir('d'), file('d/z'), file('b', 'c'.repeat(64)), file('c', 'a'.repeat(64), 0o600)];
    const delta = manifestDelta(have, want);
    expect(delta.copy.map((e) => e.path)).to.deep.equal(['d/z', 'b', 'c']);
    expect(delta.directories.map((e) => e.path)).to.deep.equal(['d']);
    expect(delta.remove).to.deep.equal(['a']);
  });

  it('refuses manifest paths that leave the server root or touch .cairn', () => {
    for (const bad of ['', '/etc/passwd', '../x', 'a/../../x', 'a//b', '.cairn/server.jar', 'a\\b', 'a\0b', '.']) {
      expect(() => checkManifestPath(bad), bad).to.throw();
    }
    expect(checkManifestPath('world/level.dat')).to.equal('world/level.dat');
  });
});
