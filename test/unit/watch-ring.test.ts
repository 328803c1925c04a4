import { expect } from 'chai';
import { WatchRing } from '../../src/controller/services/servers/watch-ring.js';

describe('WatchRing: the bounded past a watch resumes from', () => {
  let now = 0;
  const ring = (maxEntries: number, maxAgeMs = 60_000) => new WatchRing<string>({ maxEntries, maxAgeMs }, () => now);
  const seqs = (entries: { seq: number }[] | undefined) => entries?.map((e) => e.seq);
  beforeEach(() => (now = 1_000_000));

  it('numbers appends and reservations from 1 and answers what came after a number', () => {
    const r = ring(10);
    expect(r.append('a').seq).to.equal(1);
    expect(r.reserve()).to.equal(2);
    expect(r.append('b').seq).to.equal(3);
    expect(r.head).to.equal(3);
    expect(r.after(0)?.map((e) => e.value)).to.deep.equal(['a', 'b']);
    expect(seqs(r.after(1))).to.deep.equal([3]);
    expect(seqs(r.after(2))).to.deep.equal([3]);
    expect(r.after(3)).to.deep.equal([]);
  });

  it('never holds more than maxEntries: the oldest go, and a number before them can no longer be answered', () => {
    const r = ring(3);
    for (let i = 0; i < 1000; i++) r.append(`e${i}`);
    expect(r.size).to.equal(3);
    expect(seqs(r.after(997))).to.deep.equal([998, 999, 1000]);
    expect(r.after(996), 'entry 997 is gone').to.equal(undefined);
    expect(r.after(0)).to.equal(undefined);
  });

  it('forgets entries older than maxAgeMs, also without new appends', () => {
    const r = ring(100, 5_000);
    r.append('old');
    now += 3_000;
    r.append('newer');
    now += 2_500;
    expect(r.size).to.equal(1);
    expect(r.after(0)).to.equal(undefined);
    expect(seqs(r.after(1))).to.deep.equal([2]);
    now += 10_000;
    expect(r.size).to.equal(0);
    expect(r.after(1)).to.equal(undefined);
    expect(r.after(2), 'nothing came after 2, so nothing was missed').to.deep.equal([]);
  });

  it('a reserved number stays a valid place after the entries before it are gone', () => {
    const r = ring(2);
    r.append('a');
    const mark = r.reserve();
    r.append('b');
    r.append('c');
    expect(seqs(r.after(mark))).to.deep.equal([3, 4]);
    r.append('d');
    expect(r.after(mark), 'entry 3 is gone').to.equal(undefined);
  });

  it('refuses a number never given out, negative or not an integer', () => {
    const r = ring(5);
    r.append('a');
    for (const bad of [2, -1, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) expect(r.after(bad), String(bad)).to.equal(undefined);
  });
});
