import { expect } from 'chai';
import { ByIdCache } from '../../src/controller/store/by-id-cache.js';
import type { Collection } from '../../src/controller/store/collection.js';

interface Doc {
  _id: string;
  name: string;
  tags: string[];
}

/** A store of one document whose reads can be held open, and which counts them. */
function fakeStore(initial: Doc) {
  let stored: Doc | null = structuredClone(initial);
  let hold: Promise<void> | undefined;
  const store = {
    reads: 0,
    holdReads(until: Promise<void>) {
      hold = until;
    },
    async findById(id: string) {
      store.reads++;
      const answer = stored && stored._id === id ? structuredClone(stored) : null;
      if (hold) await hold;
      return answer;
    },
    async update(_filter: unknown, set: Partial<Doc>) {
      if (!stored) return 0;
      stored = { ...stored, ...set };
      return 1;
    },
    async delete() {
      const n = stored ? 1 : 0;
      stored = null;
      return n;
    },
  };
  return store;
}

describe('ByIdCache: findById from memory, forgotten at every write', () => {
  const doc: Doc = { _id: 'u1', name: 'Ada', tags: ['a'] };

  it('reads the store once, then answers copies the caller may change without changing the cache', async () => {
    const store = fakeStore(doc);
    const cache = new ByIdCache(store as unknown as Collection<Doc>);
    const first = await cache.findById('u1');
    first!.tags.push('changed');
    first!.name = 'changed';
    expect(await cache.findById('u1')).to.deep.equal(doc);
    expect(store.reads).to.equal(1);
  });

  it('lends its own copy at once (cachedById) once read, the same object until a write, then nothing until read again', async () => {
    const store = fakeStore(doc);
    const cache = new ByIdCache(store as unknown as Collection<Doc>);
    expect(cache.cachedById('u1')).to.equal(undefined);
    await cache.findById('u1');
    const lent = cache.cachedById('u1');
    expect(lent).to.deep.equal(doc);
    expect(cache.cachedById('u1')).to.equal(lent);
    await cache.update({ _id: 'u1' }, { name: 'Grace' });
    expect(cache.cachedById('u1')).to.equal(undefined);
    await cache.findById('u1');
    expect(cache.cachedById('u1')?.name).to.equal('Grace');
    expect(lent?.name, 'the lent copy is never changed').to.equal('Ada');
    expect(store.reads).to.equal(2);
  });

  it('answers the written document at the next read after an update or a delete', async () => {
    const store = fakeStore(doc);
    const cache = new ByIdCache(store as unknown as Collection<Doc>);
    await cache.findById('u1');
    await cache.update({ _id: 'u1' }, { name: 'Grace' });
    expect((await cache.findById('u1'))?.name).to.equal('Grace');
    await cache.delete({ _id: 'u1' });
    expect(await cache.findById('u1')).to.equal(null);
  });

  it('does not keep a read that a write overlapped, nor a miss', async () => {
    const store = fakeStore(doc);
    const cache = new ByIdCache(store as unknown as Collection<Doc>);
    let release!: () => void;
    store.holdReads(new Promise<void>((resolve) => (release = resolve)));
    const overlapped = cache.findById('u1');
    await cache.update({ _id: 'u1' }, { name: 'Grace' });
    release();
    expect((await overlapped)?.name, 'the read began before the write').to.equal('Ada');
    expect((await cache.findById('u1'))?.name).to.equal('Grace');
    expect(await cache.findById('nobody')).to.equal(null);
    const reads = store.reads;
    await cache.findById('nobody');
    expect(store.reads).to.equal(reads + 1);
  });
});
