import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { buildPluginJar, zipEntries } from '../../src/controller/adapters/plugins/plugin-jar.js';
import { inspectJar, JarRejectedError } from '../../src/controller/adapters/plugins/jar-inspector.js';

const MiB = 1024 * 1024;

/** One entry of `bytes` zeros, streamed into the zip (never held in memory whole). */
function zeroBomb(bytes: number): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('name: Bomb\nversion: 1\n'), 'plugin.yml');
  let left = bytes;
  const zeros = new Readable({
    read() {
      const n = Math.min(left, MiB);
      left -= n;
      this.push(n > 0 ? Buffer.alloc(n) : null);
    },
  });
  zip.addReadStream(zeros, 'data/zeros.bin', { size: bytes });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.once('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.once('error', reject);
  });
}

/** Rewrites the central directory's uncompressed size of `name`: a header that lies. */
function lieAboutSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.length - 22; at >= 0; at--) {
    if (out.readUInt32LE(at) !== 0x02014b50) continue;
    const nameLength = out.readUInt16LE(at + 28);
    if (out.subarray(at + 46, at + 46 + nameLength).toString() === name) {
      out.writeUInt32LE(size, at + 24);
      return out;
    }
  }
  throw new Error(`no central directory entry ${name}`);
}

describe('uploaded jars: bounded reading and descriptors', function () {
  this.timeout(20_000);
  let dir: string;
  let n = 0;
  const inspect = async (bytes: Buffer, platform = 'paper') => {
    const path = join(dir, `jar-${++n}.jar`);
    await writeFile(path, bytes);
    return inspectJar(path, platform);
  };
  const rejected = async (bytes: Buffer, pattern: RegExp, platform = 'paper') => {
    const error = await inspect(bytes, platform).then(() => undefined, (e: unknown) => e);
    expect(error, 'the jar should be refused').to.be.instanceOf(JarRejectedError);
    expect((error as Error).message).to.match(pattern);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-jar-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('reads name and version as declared text', async () => {
    expect(await inspect(await buildPluginJar({ name: 'Hello', version: '1.0' }))).to.deep.equal({ name: 'Hello', version: '1.0', descriptor: 'plugin.yml' });
    const plain = await zipEntries({ 'plugin.yml': 'name: Tidy\nversion: 1.10\nmain: a.B\n' });
    expect((await inspect(plain)).version).to.equal('1.10');
  });

  it('prefers <platform>-plugin.yml over plugin.yml, and velocity-plugin.json for Velocity', async () => {
    const both = await zipEntries({ 'plugin.yml': 'name: Old\nversion: 1\n', 'paper-plugin.yml': 'name: New\nversion: 2\n' });
    expect(await inspect(both)).to.include({ name: 'New', descriptor: 'paper-plugin.yml' });
    const velocity = await zipEntries({ 'velocity-plugin.json': JSON.stringify({ id: 'tabby', name: 'Tabby', version: '0.3.1', main: 'x.Y' }) });
    expect(await inspect(velocity, 'velocity')).to.deep.equal({ name: 'Tabby', version: '0.3.1', descriptor: 'velocity-plugin.json' });
    await rejected(velocity, /no paper-plugin\.yml or plugin\.yml/);
  });

  it('refuses a jar without a declared name, version, or descriptor', async () => {
    await rejected(await zipEntries({ 'plugin.yml': 'version: 1.0\nmain: a.B\n' }), /declares no plugin name/);
    await rejected(await zipEntries({ 'plugin.yml': 'name: NoVersion\n' }), /declares no version/);
    await rejected(await zipEntries({ 'plugin.yml': 'name: [a, b]\nversion: 1\n' }), /declares no plugin name/);
    await rejected(await zipEntries({ 'plugin.yml': 'name: "bad/name"\nversion: 1\n' }), /must be 1 to 64/);
    await rejected(await zipEntries({ 'nested/plugin.yml': 'name: Deep\nversion: 1\n' }), /has no/);
  });

  it('refuses what is not a jar: random bytes, an empty file, a truncated zip, broken YAML', async () => {
    await rejected(Buffer.from('this is not a zip file at all, just text'), /not a readable jar/);
    await rejected(Buffer.alloc(0), /not a readable jar/);
    const good = await buildPluginJar({ name: 'Cut', version: '1' });
    await rejected(good.subarray(0, good.length - 30), /not a readable jar|broken jar/);
    await rejected(await zipEntries({ 'plugin.yml': 'name: [unclosed\nversion: 1\n' }), /cannot be parsed/);
  });

  it('refuses a billion-laughs descriptor quickly', async () => {
    const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
    lines.push('name: *a9', 'version: 1');
    const started = Date.now();
    await rejected(await zipEntries({ 'plugin.yml': lines.join('\n') }), /cannot be parsed|declares no plugin name/);
    expect(Date.now() - started).to.be.below(2000);
  });

  it('refuses a zip bomb (one entry of 128 MiB zeros) from its headers, without inflating it', async () => {
    const bomb = await zeroBomb(128 * MiB);
    expect(bomb.length).to.be.below(MiB);
    const before = process.memoryUsage().rss;
    const started = Date.now();
    await rejected(bomb, /inflates more than 100 times/);
    expect(Date.now() - started).to.be.below(1000);
    expect(process.memoryUsage().rss - before).to.be.below(64 * MiB);
  });

  it('refuses a descriptor whose header lies about its size', async () => {
    const big = await zipEntries({ 'plugin.yml': `name: Liar\nversion: 1\n# ${'x'.repeat(3 * MiB)}\n` });
    await rejected(lieAboutSize(big, 'plugin.yml', 200), /plugin\.yml|broken|too many bytes/);
  });
});
