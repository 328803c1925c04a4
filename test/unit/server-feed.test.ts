import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedReader } from '../../src/controller/services/servers/feed-reader.js';
import { FeedWriter } from '../../src/controller/services/servers/feed-writer.js';
import { WatchRing } from '../../src/controller/services/servers/watch-ring.js';
import { ChangeFeedStore, feedBatchIndexes, type FeedBatchDoc, type FeedWriterDoc } from '../../src/controller/store/change-feed.js';
import { EmbeddedAdapter } from '../../src/controller/store/embedded/embedded-adapter.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TestClock } from '../support/clock.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The store's change feed between Controllers, on the embedded store's collections (the MongoDB
 * adapter's run in test/integration/watch-across-controllers.test.ts): each writer's batches read in
 * order and none skipped, a reader starting late begins at the present, and missed batches said.
 */
describe('the server change feed between Controllers', () => {
  let dir: string;
  const clock = new TestClock();
  let adapter: EmbeddedAdapter;
  let feed: ChangeFeedStore;
  const at = (minute: number) => `2026-11-30T00:${String(minute).padStart(2, '0')}:00.000Z`;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-feed-'));
    adapter = await EmbeddedAdapter.open(dir, clock);
    feed = new ChangeFeedStore(await adapter.openCollection<FeedBatchDoc>('serverFeed', feedBatchIndexes), await adapter.openCollection<FeedWriterDoc>('serverFeedWriters', []));
  });
  afterEach(async () => {
    await adapter.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A reader following the feed as `self`, with what it heard. */
  const reader = (self: string) => {
    const heard: unknown[] = [];
    let lost = 0;
    const r = new FeedReader(feed, () => self, { items: (items) => heard.push(...items), lostTrack: () => (lost += 1) });
    return { r, heard, lost: () => lost };
  };

  it('reads every other writer\'s batches in order, never its own, as far as its record says, and starts after what was there', async () => {
    await feed.join('a', at(0));
    await feed.join('b', at(0));
    await feed.write({ writer: 'a', seq: 1, at: at(0), items: ['old'] });
    await feed.advance('a', 1);
    const { r, heard } = reader('b');
    await r.start();
    await feed.write({ writer: 'a', seq: 2, at: at(1), items: ['a2', 'a2+'] });
    await feed.write({ writer: 'b', seq: 1, at: at(1), items: ['mine'] });
    await feed.advance('b', 1);
    await r.poll();
    expect(heard, 'stored, but its record not advanced yet').to.deep.equal([]);
    await feed.advance('a', 2);
    await r.poll();
    expect(heard).to.deep.equal(['a2', 'a2+']);
    await feed.write({ writer: 'a', seq: 3, at: at(2), items: ['a3'] });
    await feed.write({ writer: 'a', seq: 4, at: at(2), items: ['a4'] });
    await feed.advance('a', 3);
    await r.poll();
    expect(heard).to.deep.equal(['a2', 'a2+', 'a3']);
    // A renewal that read an older number does not move the record back.
    expect(await feed.renew('a', at(3), 2)).to.equal(true);
    await feed.advance('a', 4);
    expect(await feed.renew('a', at(3), 3)).to.equal(true);
    await r.poll();
    expect(heard).to.deep.equal(['a2', 'a2+', 'a3', 'a4']);
  });

  it('looks up no batch of a writer whose record says nothing new: dead writers cost a poll nothing', async () => {
    const lookups: string[] = [];
    const batches = await adapter.openCollection<FeedBatchDoc>('countedFeed', feedBatchIndexes);
    const findById = batches.findById.bind(batches);
    batches.findById = (id) => {
      lookups.push(id);
      return findById(id);
    };
    const counted = new ChangeFeedStore(batches, await adapter.openCollection<FeedWriterDoc>('countedWriters', []));
    for (let w = 0; w < 30; w++) {
      await counted.join(`dead${w}`, at(0));
      await counted.write({ writer: `dead${w}`, seq: 1, at: at(0), items: [w] });
      await counted.advance(`dead${w}`, 1);
    }
    const heard: unknown[] = [];
    const r = new FeedReader(counted, () => 'b', { items: (items) => heard.push(...items), lostTrack: () => undefined });
    await r.start();
    for (let i = 0; i < 5; i++) await r.poll();
    expect({ lookups, heard }).to.deep.equal({ lookups: [], heard: [] });
    await counted.write({ writer: 'dead7', seq: 2, at: at(1), items: ['news'] });
    await counted.advance('dead7', 2);
    await r.poll();
    expect({ lookups, heard }).to.deep.equal({ lookups: ['dead7:2'], heard: ['news'] });
  });

  it('a writer that joins later is read from its first batch', async () => {
    const { r, heard } = reader('b');
    await r.start();
    await feed.join('c', at(3));
    await feed.write({ writer: 'c', seq: 1, at: at(3), items: ['c1'] });
    await feed.write({ writer: 'c', seq: 2, at: at(3), items: ['c2'] });
    await feed.advance('c', 2);
    await r.poll();
    expect(heard).to.deep.equal(['c1', 'c2']);
  });

  it('batches trimmed before they were read, or dropped by their writer, are said lost once', async () => {
    await feed.join('a', at(0));
    const { r, heard, lost } = reader('b');
    await r.start();
    await feed.write({ writer: 'a', seq: 1, at: at(0), items: ['a1'] });
    await feed.write({ writer: 'a', seq: 2, at: at(5), items: ['a2'] });
    expect(await feed.renew('a', at(5), 2)).to.equal(true);
    await feed.trim(at(1));
    await r.poll();
    expect(lost()).to.equal(1);
    expect(heard, 'picks up after the gap').to.deep.equal([]);
    await feed.write({ writer: 'a', seq: 3, at: at(6), items: ['a3'], lost: true });
    await feed.advance('a', 3);
    await r.poll();
    expect(heard).to.deep.equal(['a3']);
    expect(lost()).to.equal(2);
    await r.poll();
    expect(lost()).to.equal(2);
  });

  it('a writer not seen within the retention is removed, and told so when it renews', async () => {
    await feed.join('a', at(0));
    await feed.trim(at(10));
    expect(await feed.listWriters()).to.deep.equal([]);
    expect(await feed.renew('a', at(11), 0)).to.equal(false);
  });

  it('the writer stores what it is given in order, in few batches, retrying a failed one under its number', async () => {
    let failures = 2;
    const flaky = new ChangeFeedStore(
      await adapter.openCollection<FeedBatchDoc>('flakyFeed', feedBatchIndexes),
      await adapter.openCollection<FeedWriterDoc>('flakyWriters', []),
    );
    const write = flaky.write.bind(flaky);
    flaky.write = async (batch) => {
      if (failures-- > 0) throw new Error('store unreachable');
      await write(batch);
    };
    await flaky.join('w', at(0));
    const writer = new FeedWriter(flaky, () => 'w', () => at(0), silentLogger, { maxBatch: 3, maxQueued: 100, retryMs: 5 });
    for (let i = 1; i <= 7; i++) writer.push(i);
    await waitFor(() => writer.seq === 3, { what: 'three batches stored' });
    const items = [];
    for (let seq = 1; seq <= 3; seq++) items.push(...(await flaky.batch('w', seq))!.items);
    expect(items).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    await waitFor(async () => (await flaky.listWriters()).at(0)?.seq === 3, { what: 'the writer\'s record advanced to its last batch' });
    await writer.stop();
  });

  it('a writer whose queue overflows drops it and marks its next batch lost', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const write = feed.write.bind(feed);
    feed.write = async (batch) => {
      await held;
      await write(batch);
    };
    const writer = new FeedWriter(feed, () => 'w', () => at(0), silentLogger, { maxBatch: 10, maxQueued: 2, retryMs: 5 });
    writer.push('first');
    for (const item of ['x', 'y', 'z']) writer.push(item);
    release();
    await waitFor(() => writer.seq === 2, { what: 'two batches stored' });
    expect(await feed.batch('w', 1)).to.include({ seq: 1 }).and.not.have.property('lost');
    expect(await feed.batch('w', 2)).to.deep.include({ items: ['z'], lost: true });
    await writer.stop();
  });

  it('a ring that forgets everything resumes no id it gave out', () => {
    const ring = new WatchRing<string>({ maxEntries: 10, maxAgeMs: 60_000 }, () => 0);
    ring.append('a');
    const mark = ring.append('b').seq;
    ring.forgetAll();
    expect(ring.after(mark)).to.equal(undefined);
    const next = ring.append('c');
    expect(next.seq).to.be.above(mark);
    expect(ring.after(next.seq)).to.deep.equal([]);
  });
});
