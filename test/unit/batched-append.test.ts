import NedbModule from '@seald-io/nedb';
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BatchedAppend, type AppendSink, type NedbWriting } from '../../src/controller/store/embedded/batched-append.js';
import { NedbCollection } from '../../src/controller/store/embedded/nedb-collection.js';
import { tempDirPerTest } from '../support/temp-dir.js';

const Datastore = ((NedbModule as unknown as { default?: unknown }).default ?? NedbModule) as typeof NedbModule.default;

interface Doc { _id: string; n: number }
interface Steps { _insertAsync(doc: unknown): Promise<unknown> }

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
});
