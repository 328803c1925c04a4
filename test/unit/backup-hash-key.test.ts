import { expect } from 'chai';
import { lstat, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKeyOf } from '../../src/shared/backup/scan.js';

describe('backups: when a cached hash is still valid', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cairn-hashkey-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a same-size change with its modification time put back (touch -r) is seen', async () => {
    const file = join(dir, 'level.dat');
    await writeFile(file, 'AAAA');
    // A whole second, so putting it back restores it exactly (as `touch -r` does).
    await utimes(file, 1_700_000_000, 1_700_000_000);
    const before = await lstat(file, { bigint: true });
    // The change time only moves forward with the clock; wait for it to tick past the first change.
    while (Date.now() <= Number(before.ctimeMs) + 10) await new Promise((resolve) => setImmediate(resolve));
    await writeFile(file, 'BBBB');
    await utimes(file, 1_700_000_000, 1_700_000_000);
    const after = await lstat(file, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).to.deep.equal([before.size, before.mtimeNs, before.ino]);
    expect(hashKeyOf(after)).to.not.equal(hashKeyOf(before));
  });

  it('an untouched file keeps its key', async () => {
    const file = join(dir, 'a');
    await writeFile(file, 'x');
    expect(hashKeyOf(await lstat(file, { bigint: true }))).to.equal(hashKeyOf(await lstat(file, { bigint: true })));
  });
});
