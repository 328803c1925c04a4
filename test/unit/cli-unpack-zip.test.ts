import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackZip } from '../../src/cli/unpack-zip.js';
import { zipOf, zipWithRenamedEntry } from '../support/archive-builders.js';
import { tempDirPerTest } from '../support/temp-dir.js';

/** `cairn cp NAME:DIR LOCAL` unpacks the zip the Controller streams; a hostile entry stops it before anything is written. */
describe('cli unpackZip: a folder\'s zip unpacked locally', () => {
  const dir = tempDirPerTest('cairn-unpack-');
  const unpack = async (zip: Buffer, strip: string) => {
    await writeFile(join(dir(), 'in.zip'), zip);
    return unpackZip(join(dir(), 'in.zip'), join(dir(), 'out'), strip);
  };
  const refusal = async (zip: Buffer, strip: string) => {
    const e = await unpack(zip, strip).then(() => undefined, (err: unknown) => err as Error);
    expect(e, 'refused').to.be.instanceOf(Error);
    expect(await readdir(dir())).to.deep.equal(['in.zip']);
    return e!.message;
  };

  it('takes the folder\'s name off the entries and writes each file byte for byte', async () => {
    const big = randomBytes(300_000);
    const counts = await unpack(await zipOf({ 'world/': '', 'world/level.dat': big, 'world/region/r.0.0.mca': 'mca', 'world/empty/': '' }), 'world');
    expect(counts).to.deep.equal({ files: 2, bytes: big.length + 3 });
    expect((await readFile(join(dir(), 'out/level.dat'))).equals(big)).to.equal(true);
    expect(await readFile(join(dir(), 'out/region/r.0.0.mca'), 'utf8')).to.equal('mca');
    expect(await readdir(join(dir(), 'out/empty'))).to.deep.equal([]);
  });

  it('a root\'s zip (no folder name) is unpacked as it is', async () => {
    expect(await unpack(await zipOf({ 'a.txt': 'A', 'b/c.txt': 'C' }), '')).to.deep.equal({ files: 2, bytes: 2 });
    expect(await readFile(join(dir(), 'out/b/c.txt'), 'utf8')).to.equal('C');
  });

  it('refuses `..`, an absolute name, a symbolic link and an entry outside the folder, naming it; nothing is written', async () => {
    expect(await refusal(await zipWithRenamedEntry('world/aa/bb/passwd', 'world/../../passwd'), 'world')).to.match(/"world\/\.\.\/\.\.\/passwd" is refused: it leads outside/);
    expect(await refusal(await zipWithRenamedEntry('xetc/passwd', '/etc/passwd'), '')).to.match(/"\/etc\/passwd" is refused: it is an absolute path/);
    expect(await refusal(await zipOf({ 'world/ok.txt': 'fine', 'world/link': '/' }, { 'world/link': 0o120777 }), 'world')).to.match(/"world\/link" is refused: it is a symbolic link/);
    expect(await refusal(await zipOf({ 'world/ok.txt': 'fine', 'other/x.txt': 'x' }), 'world')).to.match(/"other\/x\.txt" is refused: it lies outside the folder "world"/);
  });
});
