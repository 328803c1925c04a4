import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { Mrpack } from '../../src/controller/adapters/software/mrpack-zip.js';

async function zipOf(entries: { name: string; text: string; mode?: number }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.text), e.name, e.mode ? { mode: e.mode } : {});
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('a .mrpack opened as a zip', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-mrpack-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const write = async (bytes: Buffer) => {
    const path = join(dir, 'pack.mrpack');
    await writeFile(path, bytes);
    return path;
  };

  it('reads the index and extracts an entry with its sha256', async () => {
    const pack = await Mrpack.open(await write(await zipOf([{ name: 'modrinth.index.json', text: '{"formatVersion":1}' }, { name: 'overrides/a.txt', text: 'hello' }])));
    try {
      expect(await pack.indexText()).to.equal('{"formatVersion":1}');
      const got = await pack.extract(pack.entries.get('overrides/a.txt')!, join(dir, 'a'));
      expect(got).to.deep.equal({ sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824', size: 5 });
      expect(await readFile(join(dir, 'a'), 'utf8')).to.equal('hello');
    } finally {
      pack.close();
    }
  });

  it('refuses a symbolic link entry, a pack without an index, and bytes that are no zip', async () => {
    const link = await write(await zipOf([{ name: 'modrinth.index.json', text: '{}' }, { name: 'overrides/passwd', text: '/etc/passwd', mode: 0o120777 }]));
    await Mrpack.open(link).then(() => expect.fail('opened'), (e: unknown) => expect((e as Error).message).to.match(/"overrides\/passwd" is a symbolic link/));
    const none = await Mrpack.open(await write(await zipOf([{ name: 'overrides/a.txt', text: 'x' }])));
    try {
      await none.indexText().then(() => expect.fail('read'), (e: unknown) => expect((e as Error).message).to.match(/no modrinth\.index\.json/));
    } finally {
      none.close();
    }
    await Mrpack.open(await write(Buffer.from('not a zip'))).then(() => expect.fail('opened'), (e: unknown) => expect((e as Error).message).to.match(/not a readable zip/));
  });
});
