import NedbModule from '@seald-io/nedb';
import { expect } from 'chai';
import { readFile, stat, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreFullError } from '../../src/controller/core/store-full.js';
import { BatchedAppend, fileSink, type AppendOutcome, type AppendSink, type NedbWriting } from '../../src/controller/store/embedded/batched-append.js';
import { NedbCollection } from '../../src/controller/store/embedded/nedb-collection.js';
import { tempDirPerTest } from '../support/temp-dir.js';

const Datastore = ((NedbModule as unknown as { default?: unknown }).default ?? NedbModule) as typeof NedbModule.default;

interface Doc { _id: string; n: number }
interface Steps {
  _insertAsync(doc: unknown): Promise<unknown>;
  _updateAsync(query: unknown, update: unknown, options: { multi: boolean }): Promise<unknown>;
  _removeAsync(query: unknown, options: { multi: boolean }): Promise<number>;
}

const noSpace = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/**
 * A disk whose appends the test runs one by one: each call takes the next plan, which may write
 * only part of the text and then fail as a full disk does.
 */
class PlannedDisk {
  readonly plans: ('ok' | 'full')[] = [];
  private gate?: Promise<void>;
  private open?: () => void;
  calls = 0;

  /** The next append waits until `let()`. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  let(): void {
    this.open?.();
  }

  readonly write = async (handle: FileHandle, bytes: Buffer): Promise<void> => {
    this.calls += 1;
    const gate = this.gate;
    this.gate = undefined;
    await gate;
    if ((this.plans.shift() ?? 'ok') === 'ok') return void (await handle.appendFile(bytes));
    await handle.appendFile(bytes.subarray(0, Math.floor(bytes.length / 2)));
    throw noSpace();
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A disk whose appends finish when the test says so. */
class HeldSink implements AppendSink {
  readonly batches: string[] = [];
  private readonly held: (() => void)[] = [];
  released = 0;

  append(text: string): Promise<void> {
    this.batches.push(text);
    return new Promise((resolve) => this.held.push(resolve));
  }

  finishAll(): void {
    this.held.splice(0).forEach((finish) => finish());
  }

  async release(): Promise<void> {
    this.released += 1;
  }
}

describe('embedded store: batched appends', () => {
  const dir = tempDirPerTest('cairn-batched-append-');

  it('writes queued while the disk is busy go out as one append, and each is answered only once its lines are on disk', async () => {
    const db = new Datastore({ filename: join(dir(), 'servers.db') });
    await db.loadDatabaseAsync();
    const sink = new HeldSink();
    const appends = BatchedAppend.install(db as unknown as NedbWriting, sink);
    const steps = db as unknown as Steps;
    const answered: number[] = [];
    const first = appends.write(() => steps._insertAsync({ _id: 'first', n: 0 })).then(() => answered.push(0));
    // The first append is on its way; these 50 queue behind it while nedb's queue keeps moving.
    const rest = Array.from({ length: 50 }, (_, i) => appends.write(() => steps._insertAsync({ _id: `s${i}`, n: i + 1 })).then(() => answered.push(i + 1)));
    while (sink.batches.length < 1 || (await db.countAsync({})) < 51) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).to.deep.equal([]);
    sink.finishAll();
    await first;
    while (sink.batches.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).to.deep.equal([0]);
    sink.finishAll();
    await Promise.all(rest);
    expect(sink.batches).to.have.length(2);
    expect(sink.batches[1].trim().split('\n').map((line) => (JSON.parse(line) as Doc).n)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('a compaction waits for queued appends and lets go of the file, so writes after it land in the new file', async () => {
    const file = join(dir(), 'servers.db');
    const collection = await NedbCollection.open<Doc>(file, [], () => undefined);
    await Promise.all(Array.from({ length: 20 }, (_, i) => collection.insert({ _id: `s${i}`, n: i })));
    const compacting = collection.compact();
    const later = collection.update({ _id: 's3' }, { n: 300 });
    await Promise.all([compacting, later]);
    await collection.insert({ _id: 'after', n: 1000 });
    await collection.delete({ _id: 's0' });
    const reopened = await NedbCollection.open<Doc>(file, [], () => undefined);
    const docs = await reopened.find({}, { sort: { n: 1 } });
    expect(docs).to.have.length(20);
    expect(docs.find((d) => d._id === 's3')!.n).to.equal(300);
    expect(docs.at(-1)).to.deep.equal({ _id: 'after', n: 1000 });
    expect(await readFile(file, 'utf8')).to.contain('"_id":"after"');
  });

  describe('a failed append', () => {
    async function setUp() {
      const file = join(dir(), 'servers.db');
      const seed = new Datastore({ filename: file });
      await seed.loadDatabaseAsync();
      await seed.insertAsync([{ _id: 'a', n: 1 }, { _id: 'z', n: 26 }]);
      const db = new Datastore({ filename: file });
      await db.loadDatabaseAsync();
      const disk = new PlannedDisk();
      const outcomes: AppendOutcome[] = [];
      const appends = BatchedAppend.install(db as unknown as NedbWriting, fileSink(file, 0o600, disk.write), (o) => outcomes.push(o));
      const steps = db as unknown as Steps;
      const all = async () => ((await db.findAsync({}).sort({ _id: 1 })) as unknown as Doc[]).map((d) => `${d._id}=${d.n}`);
      return { file, db, disk, appends, steps, outcomes, all };
    }

    it('cuts the file back, undoes every write of the batch (and those queued behind it) in memory, and refuses them all as a full disk', async () => {
      const { file, disk, appends, steps, outcomes, all } = await setUp();
      disk.plans.push('ok', 'full');
      const first = appends.write(() => steps._insertAsync({ _id: 'first', n: 0 }));
      await first;
      const sizeBefore = (await stat(file)).size;
      const contentBefore = await readFile(file, 'utf8');

      disk.hold();
      // One batch on its way to a disk that fills part way: an insert, an update and a delete of
      // records already there, and an update that builds on the insert.
      const batch = [
        appends.write(() => steps._insertAsync({ _id: 'b', n: 2 })),
        appends.write(() => steps._updateAsync({ _id: 'a' }, { $set: { n: 100 } }, { multi: false })),
        appends.write(() => steps._removeAsync({ _id: 'z' }, { multi: false })),
        appends.write(() => steps._updateAsync({ _id: 'b' }, { $set: { n: 200 } }, { multi: false })),
      ];
      while (disk.calls < 2) await tick();
      // Queued behind the failing batch, and built on it: refused with it.
      const queued = appends.write(() => steps._updateAsync({ _id: 'b' }, { $inc: { n: 1 } }, { multi: false }));
      await tick();
      disk.let();
      const settled = await Promise.allSettled([...batch, queued]);

      for (const result of settled) {
        expect(result.status).to.equal('rejected');
        expect((result as PromiseRejectedResult).reason).to.be.instanceOf(StoreFullError);
      }
      expect((await stat(file)).size).to.equal(sizeBefore);
      expect(await readFile(file, 'utf8')).to.equal(contentBefore);
      expect(await all()).to.deep.equal(['a=1', 'first=0', 'z=26']);
      expect(outcomes.map((o) => o.ok)).to.deep.equal([true, false]);

      // Space again: the next write goes through and the file loads to exactly what was answered.
      await appends.write(() => steps._insertAsync({ _id: 'later', n: 3 }));
      expect(outcomes.at(-1)).to.deep.equal({ ok: true });
      const reloaded = new Datastore({ filename: file });
      await reloaded.loadDatabaseAsync();
      expect(((await reloaded.findAsync({}).sort({ _id: 1 })) as unknown as Doc[]).map((d) => `${d._id}=${d.n}`)).to.deep.equal(['a=1', 'first=0', 'later=3', 'z=26']);
    });

    it('answers a caller refused only once its change is gone from memory', async () => {
      const { disk, appends, steps, db } = await setUp();
      disk.plans.push('full');
      const refused = appends.write(() => steps._insertAsync({ _id: 'b', n: 2 }));
      const seen = await refused.then(() => 'stored', async () => (await db.findOneAsync({ _id: 'b' })) as Doc | null);
      expect(seen).to.equal(null);
    });

    it('a NedbCollection refuses with StoreFullError and keeps no trace of the write', async () => {
      const file = join(dir(), 'teams.db');
      const collection = await NedbCollection.open<Doc>(file, [{ field: 'n', unique: true }], () => undefined);
      await collection.insert({ _id: 't1', n: 1 });
      const before = await readFile(file, 'utf8');
      const internal = collection as unknown as { appends: { sink: AppendSink } };
      const real = internal.appends.sink;
      internal.appends.sink = { append: () => Promise.reject(noSpace()), release: () => real.release() };
      const refused = await collection.insert({ _id: 't2', n: 2 }).then(() => undefined, (e: unknown) => e);
      expect(refused).to.be.instanceOf(StoreFullError);
      expect(await collection.findById('t2')).to.equal(null);
      // The unique index was undone too: the same value can be written once there is room.
      internal.appends.sink = real;
      await collection.insert({ _id: 't3', n: 2 });
      expect(await readFile(file, 'utf8')).to.equal(before + '{"_id":"t3","n":2}\n');
    });
  });

  it('an append that fails while a compaction waits for it is undone at once, and the compaction writes what was kept', async () => {
    const file = join(dir(), 'teams.db');
    const collection = await NedbCollection.open<Doc>(file, [], () => undefined);
    await collection.insert({ _id: 't1', n: 1 });
    const internal = collection as unknown as { appends: { sink: AppendSink } };
    const real = internal.appends.sink;
    const failers: (() => void)[] = [];
    internal.appends.sink = { append: () => new Promise((_, reject) => failers.push(() => reject(noSpace()))), release: () => real.release() };
    const refused = collection.insert({ _id: 't2', n: 2 }).then(() => undefined, (e: unknown) => e);
    while (failers.length === 0) await tick();
    const compacted = collection.compact();
    await tick();
    failers[0]();
    expect(await refused).to.be.instanceOf(StoreFullError);
    await compacted;
    collection.stopCompaction();
    expect(await readFile(file, 'utf8')).to.equal('{"_id":"t1","n":1}\n');
  });

  it('a half-written last line is cut at load and the file opens on every complete line', async () => {
    const file = join(dir(), 'teams.db');
    await writeFile(file, '{"_id":"t1","n":1}\n{"_id":"t2","n":2}\n{"_id":"t3","n"');
    const repairs: string[] = [];
    const collection = await NedbCollection.open<Doc>(file, [], (r) => repairs.push(r.dropped));
    expect((await collection.find({}, { sort: { n: 1 } })).map((d) => d._id)).to.deep.equal(['t1', 't2']);
    expect(repairs).to.deep.equal(['a half-written last record (15 bytes)']);
    await collection.insert({ _id: 't4', n: 4 });
    const reopened = await NedbCollection.open<Doc>(file, [], () => undefined);
    expect((await reopened.find({}, { sort: { n: 1 } })).map((d) => d._id)).to.deep.equal(['t1', 't2', 't4']);
  });
});
