import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { StoreFullError } from '../../src/controller/core/store-full.js';
import { WriteHealth } from '../../src/controller/store/embedded/write-health.js';
import { tempDirPerTest } from '../support/temp-dir.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('embedded store: write health (/readyz store.writable)', () => {
  const dir = tempDirPerTest('cairn-write-health-');

  it('after a full disk stays unwritable, whatever small append still fits, until its probe writes a file', async () => {
    let now = 0;
    const health = new WriteHealth(dir(), 2000, () => now);
    await health.check();
    health.note({ ok: false, error: errno('ENOSPC') });
    health.note({ ok: true });
    const refused = await health.check().then(() => undefined, (e: unknown) => e);
    expect(refused).to.be.instanceOf(StoreFullError);
    now = 2000;
    await health.check();
    expect(await readdir(dir())).to.deep.equal([]);
  });

  it('after any other failed append, the next one that succeeds makes it writable', async () => {
    const health = new WriteHealth(dir(), 60_000, () => 0);
    health.note({ ok: false, error: errno('EIO') });
    const failed = await health.check().then(() => undefined, (e: unknown) => e);
    expect((failed as NodeJS.ErrnoException).code).to.equal('EIO');
    health.note({ ok: true });
    await health.check();
  });
});
