import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadHistory, saveHistory } from '../../src/agent/status/history-file.js';
import { StatusSampler } from '../../src/agent/status/status-sampler.js';
import { UsageHistory, type UsagePoint } from '../../src/agent/status/usage-history.js';

const point = (atMs: number, cpuMillis: number): UsagePoint => ({ atMs, cpuMillis, memoryBytes: cpuMillis * 1000, players: cpuMillis % 7, playersMax: 20 });

describe('usage history kept between two runs of the Agent', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-history-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a saved history answers every window as the one it was saved from, pending minute included', async () => {
    const history = new UsageHistory(10_000);
    for (let i = 0; i < 400; i++) history.record(point(1_000_000 + i * 10_000, i));
    const file = join(dir, 'usage-history.json');
    await saveHistory(file, history.saved());
    const taken = UsageHistory.from((await loadHistory(file))!);
    const now = 1_000_000 + 400 * 10_000;
    for (const window of ['10m', '1h', '6h', '24h'] as const) expect(taken.window(window, now), window).to.deep.equal(history.window(window, now));
    // The four samples waiting for their minute still make it, with the next two.
    for (let i = 400; i < 402; i++) {
      history.record(point(1_000_000 + i * 10_000, i));
      taken.record(point(1_000_000 + i * 10_000, i));
    }
    expect(taken.window('24h', now + 20_000)).to.deep.equal(history.window('24h', now + 20_000));
  });

  it('no file is no history; a damaged one is refused saying why', async () => {
    expect(await loadHistory(join(dir, 'none.json'))).to.equal(undefined);
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ version: 1, intervalMs: 10_000, fine: [[1, 2, 3]], coarse: [], pending: [] }));
    let refused: unknown;
    await loadHistory(file).catch((e: unknown) => (refused = e));
    expect(String(refused)).to.include('fine holds a sample that is not five numbers');
    await writeFile(file, '{"version":1,');
    refused = undefined;
    await loadHistory(file).catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(SyntaxError);
  });

  it('the sampler takes up the saved history, saves it on demand, and starts afresh from a damaged or foreign one', async () => {
    const file = join(dir, 'usage-history.json');
    const usage = async () => ({ pid: 1, cpuMillis: 0, memoryBytes: 5_000_000 });
    let now = 2_000_000;
    const first = new StatusSampler({ usage, intervalMs: 10_000, pingHost: '127.0.0.1', now: () => now, historyFile: file });
    for (let i = 0; i < 3; i++, now += 10_000) await first.sample({ port: 1, ping: false });
    await first.save();
    const second = new StatusSampler({ usage, intervalMs: 10_000, pingHost: '127.0.0.1', now: () => now, historyFile: file });
    await second.sample({ port: 1, ping: false });
    expect(second.window('10m').points.map((p) => p.atMs)).to.deep.equal([2_000_000, 2_010_000, 2_020_000, 2_030_000]);
    // Taken at another interval, its windows would be wrong: a new history begins.
    const other = new StatusSampler({ usage, intervalMs: 5_000, pingHost: '127.0.0.1', now: () => now, historyFile: file });
    await other.sample({ port: 1, ping: false });
    expect(other.window('10m').points).to.have.length(1);
    await writeFile(file, 'not json');
    const fresh = new StatusSampler({ usage, intervalMs: 10_000, pingHost: '127.0.0.1', now: () => now, historyFile: file });
    await fresh.sample({ port: 1, ping: false });
    expect(fresh.window('10m').points).to.have.length(1);
    await fresh.save();
    expect(JSON.parse(await readFile(file, 'utf8'))).to.include({ version: 1, intervalMs: 10_000 });
  });
});
