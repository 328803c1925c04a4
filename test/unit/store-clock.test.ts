import { expect } from 'chai';
import { StoreClock } from '../../src/controller/services/leases/store-clock.js';

describe('StoreClock: the store\'s time, moved on by this process\'s monotonic clock', () => {
  it('is the store\'s time at the sync plus the monotonic time since', async () => {
    let monotonic = 1_000;
    let server = Date.parse('2026-12-01T00:00:00Z');
    const clock = new StoreClock(() => Promise.resolve(server), () => monotonic);
    await clock.sync();
    monotonic += 2_500;
    expect(clock.now().toISOString()).to.equal('2026-12-01T00:00:02.500Z');
    // A later sync takes the store's word again, even where it is behind what was counted.
    server += 2_000;
    await clock.sync();
    expect(clock.now().toISOString()).to.equal('2026-12-01T00:00:02.000Z');
  });

  it('keeps the last measure when a sync fails', async () => {
    let monotonic = 0;
    let fail = false;
    const clock = new StoreClock(() => (fail ? Promise.reject(new Error('store down')) : Promise.resolve(Date.parse('2026-12-01T00:00:00Z'))), () => monotonic);
    await clock.sync();
    fail = true;
    monotonic += 1_000;
    await clock.sync().then(() => expect.fail('the sync should fail'), (e: unknown) => expect(String(e)).to.include('store down'));
    expect(clock.now().toISOString()).to.equal('2026-12-01T00:00:01.000Z');
  });
});
