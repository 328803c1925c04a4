import { expect } from 'chai';
import { coarseSlots, fineSlots, UsageHistory, type UsagePoint } from '../../src/agent/status/usage-history.js';
import { StatusSampler } from '../../src/agent/status/status-sampler.js';

const second = 1_000;
const point = (atMs: number, cpuMillis: number, memoryBytes: number, players = -1, playersMax = -1): UsagePoint => ({ atMs, cpuMillis, memoryBytes, players, playersMax });

describe('UsageHistory: a server\'s usage over the last day, in fixed memory', () => {
  it('answers 10m and 1h from the 10-second samples, oldest first, each window cut at its span', () => {
    const h = new UsageHistory(10 * second);
    const start = 1_000_000_000_000;
    for (let i = 0; i < 400; i++) h.record(point(start + i * 10 * second, i, i * 2));
    const now = start + 399 * 10 * second;
    const tenMinutes = h.window('10m', now);
    expect(tenMinutes.intervalMs).to.equal(10 * second);
    expect(tenMinutes.points.map((p) => p.cpuMillis)).to.deep.equal(Array.from({ length: 60 }, (_, i) => 340 + i));
    const hour = h.window('1h', now);
    // Only 360 fine samples are kept: the oldest 40 are gone.
    expect(hour.points).to.have.length(fineSlots);
    expect(hour.points[0].cpuMillis).to.equal(40);
    expect(hour.points.at(-1)!.cpuMillis).to.equal(399);
  });

  it('keeps a minute sample per six: CPU their mean, memory and players their highest', () => {
    const h = new UsageHistory(10 * second);
    const at = (i: number) => 5_000_000 + i * 10 * second;
    [[10, 100, 2], [20, 400, 5], [30, 200, -1], [40, 300, 4], [50, 100, 1], [60, 50, 0]].forEach(([cpu, mem, players], i) => h.record(point(at(i), cpu, mem, players, 20)));
    h.record(point(at(6), 999, 999, 9, 20));
    const { intervalMs, points } = h.window('6h', at(6));
    expect(intervalMs).to.equal(60 * second);
    expect(points).to.deep.equal([{ atMs: at(5), cpuMillis: 35, memoryBytes: 400, players: 5, playersMax: 20 }]);
  });

  it('marks a minute whose pings all failed as unknown players, not zero', () => {
    const h = new UsageHistory(10 * second);
    for (let i = 0; i < 6; i++) h.record(point(i * 10 * second, 1, 1));
    expect(h.window('24h', 60 * second).points[0].players).to.equal(-1);
  });

  it('keeps at most a day of minute samples and answers 6h as its last 360', () => {
    const h = new UsageHistory(10 * second);
    const fine = (coarseSlots + 100) * 6;
    for (let i = 0; i < fine; i++) h.record(point(i * 10 * second, i, 1));
    const now = (fine - 1) * 10 * second;
    expect(h.window('24h', now).points).to.have.length(coarseSlots);
    expect(h.window('6h', now).points).to.have.length(360);
  });

  it('takes the same memory empty and full (typed arrays allocated once)', () => {
    const h = new UsageHistory(10 * second);
    const empty = h.bytes;
    for (let i = 0; i < 20_000; i++) h.record(point(i * 10 * second, i, i, 1, 2));
    expect(h.bytes).to.equal(empty);
    expect(empty).to.be.below(64 * 1024);
  });
});

describe('StatusSampler: CPU as a rate, players by ping, samples into the history', () => {
  it('turns CPU time into thousandths of a core between samples, and since the start for the first', async () => {
    let now = 100_000;
    let cpuMs = 500;
    const sampler = new StatusSampler({
      usage: async () => ({ pid: 42, cpuMillis: cpuMs, memoryBytes: 64 * 2 ** 20 }),
      intervalMs: 10_000, pingHost: '127.0.0.1', now: () => now,
      ping: async () => ({ online: 2, max: 20 }),
    });
    await sampler.sample({ port: 30000, ping: true, startedAtMs: 90_000 });
    // 500 ms of CPU in the 10 s since the start: 0.05 of a core.
    expect(sampler.usage).to.deep.equal({ cpuMillis: 50, memoryBytes: 64 * 2 ** 20, diskBytes: 0 });
    expect(sampler.players).to.deep.equal({ online: 2, max: 20 });
    now += 10_000;
    cpuMs += 15_000;
    await sampler.sample({ port: 30000, ping: true, startedAtMs: 90_000 });
    expect(sampler.usage.cpuMillis).to.equal(1500);
    const { points } = sampler.window('10m');
    expect(points.map((p) => [p.cpuMillis, p.players])).to.deep.equal([[50, 2], [1500, 2]]);
  });

  it('does not ping when told not to, and forgets the current values when the process ends', async () => {
    let pinged = 0;
    const sampler = new StatusSampler({
      usage: async () => ({ pid: 7, cpuMillis: 0, memoryBytes: 1 }), intervalMs: 10_000, pingHost: '127.0.0.1',
      ping: async () => {
        pinged += 1;
        return { online: 1, max: 1 };
      },
    });
    await sampler.sample({ port: 30000, ping: false });
    expect(pinged).to.equal(0);
    expect(sampler.players).to.equal(null);
    await sampler.sample({ port: 30000, ping: true });
    expect(sampler.players).to.deep.equal({ online: 1, max: 1 });
    sampler.ended();
    expect(sampler.players).to.equal(null);
    expect(sampler.usage.memoryBytes).to.equal(0);
    expect(sampler.window('1h').points).to.have.length(2);
  });
});
