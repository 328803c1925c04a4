import { expect } from 'chai';
import { DuplicateKeyError, type Collection } from '../../src/controller/store/collection.js';
import { UndefinedInFilterError } from '../../src/controller/store/document-rules.js';
import { collectionIndexes, openRepositories } from '../../src/controller/store/repositories.js';
import { describeStoreContract, ids, thingIndexes, type Thing } from '../support/store-contract.js';

describeStoreContract('collections, backup records', (contract) => {
  let things: Collection<Thing>;
  let seq = 0;
  const fresh = async () => contract.adapter.openCollection<Thing>(`things${seq++}`, thingIndexes);

  describe('collections', () => {
    beforeEach(async () => {
      things = await fresh();
      await things.insert({ _id: 'a', name: 'Alpha', nameKey: 'alpha', email: 'a@x', n: 1, tags: ['red', 'blue'], value: { done: false, label: 'l' } });
      await things.insert({ _id: 'b', name: 'Beta', nameKey: 'beta', n: 2, tags: [], value: { done: true } });
      await things.insert({ _id: 'c', name: 'Gamma', nameKey: 'gamma', email: 'c@x', n: 3 });
      await things.insert({ _id: 'd', name: 'Delta', nameKey: 'delta', tags: ['blue'] });
    });

    it('inserts and finds by id and by filter; missing is null', async () => {
      expect(await things.findById('a')).to.deep.include({ _id: 'a', name: 'Alpha', tags: ['red', 'blue'], value: { done: false, label: 'l' } });
      expect(await things.findById('zzz')).to.equal(null);
      expect((await things.findOne({ nameKey: 'gamma' }))?._id).to.equal('c');
      expect(await things.findOne({ nameKey: 'nope' })).to.equal(null);
    });

    it('returns copies: changing a returned document does not change the store', async () => {
      const doc = (await things.findById('a'))!;
      doc.name = 'changed';
      doc.tags!.push('green');
      expect(await things.findById('a')).to.deep.include({ name: 'Alpha', tags: ['red', 'blue'] });
    });

    it('filters: equality, $in, $nin, $ne, $gt/$gte/$lt/$lte, $exists, $or, $and, array-contains, dot paths', async () => {
      expect(ids(await things.find({ n: 2 }))).to.deep.equal(['b']);
      expect(ids(await things.find({ _id: { $in: ['a', 'c', 'zz'] } }))).to.deep.equal(['a', 'c']);
      expect(ids(await things.find({ _id: { $in: [] } }))).to.deep.equal([]);
      expect(ids(await things.find({ _id: { $nin: ['a', 'c'] } }))).to.deep.equal(['b', 'd']);
      // $ne matches documents that lack the field, as in MongoDB.
      expect(ids(await things.find({ n: { $ne: 1 } }))).to.deep.equal(['b', 'c', 'd']);
      expect(ids(await things.find({ n: { $gt: 1 } }))).to.deep.equal(['b', 'c']);
      expect(ids(await things.find({ n: { $gte: 2, $lt: 3 } }))).to.deep.equal(['b']);
      expect(ids(await things.find({ n: { $lte: 1 } }))).to.deep.equal(['a']);
      expect(ids(await things.find({ _id: { $gt: 'b' } }))).to.deep.equal(['c', 'd']);
      expect(ids(await things.find({ email: { $exists: true } }))).to.deep.equal(['a', 'c']);
      expect(ids(await things.find({ email: { $exists: false } }))).to.deep.equal(['b', 'd']);
      expect(ids(await things.find({ $or: [{ n: 1 }, { nameKey: 'delta' }] }))).to.deep.equal(['a', 'd']);
      expect(ids(await things.find({ $and: [{ n: { $gt: 1 } }, { _id: { $gt: 'b' } }] }))).to.deep.equal(['c']);
      expect(ids(await things.find({ $and: [{ _id: { $in: ['a', 'b', 'c'] } }, { _id: { $gt: 'a' } }] }))).to.deep.equal(['b', 'c']);
      expect(ids(await things.find({ tags: 'blue' }))).to.deep.equal(['a', 'd']);
      expect(ids(await things.find({ tags: 'red' }))).to.deep.equal(['a']);
      expect(ids(await things.find({ 'value.done': false }))).to.deep.equal(['a']);
      expect(ids(await things.find({ 'value.done': true }))).to.deep.equal(['b']);
      expect(ids(await things.find({ _id: 'a', 'value.done': false }))).to.deep.equal(['a']);
      expect(ids(await things.find({ _id: 'a', note: { $exists: false } }))).to.deep.equal(['a']);
      expect(await things.count({})).to.equal(4);
      expect(await things.count({ tags: 'blue' })).to.equal(2);
    });

    it('sorts ascending and descending and limits', async () => {
      expect((await things.find({}, { sort: { _id: 1 } })).map((d) => d._id)).to.deep.equal(['a', 'b', 'c', 'd']);
      expect((await things.find({}, { sort: { _id: -1 }, limit: 2 })).map((d) => d._id)).to.deep.equal(['d', 'c']);
      expect((await things.find({ n: { $exists: true } }, { sort: { n: -1 } })).map((d) => d._id)).to.deep.equal(['c', 'b', 'a']);
      expect((await things.find({}, { sort: { nameKey: 1 }, limit: 3 })).map((d) => d.name)).to.deep.equal(['Alpha', 'Beta', 'Delta']);
      expect(await things.find({ _id: { $gt: 'a' } }, { sort: { _id: 1 }, limit: 0 + 1 })).to.have.length(1);
    });

    it('findShared answers as find does (filters, sorts on one or two fields, missing values, limits) and sees later writes', async () => {
      const shapes: [Record<string, unknown>, { sort?: Record<string, 1 | -1>; limit?: number }][] = [
        [{}, { sort: { _id: 1 } }],
        [{}, { sort: { _id: -1 }, limit: 2 }],
        [{}, { sort: { n: 1 } }],
        [{}, { sort: { n: -1, _id: 1 } }],
        [{ tags: 'blue' }, { sort: { nameKey: -1 } }],
        [{ $and: [{ n: { $exists: true } }, { _id: { $gt: 'a' } }] }, { sort: { _id: 1 }, limit: 1 }],
        [{ n: { $gt: 1 } }, {}],
      ];
      for (const [filter, options] of shapes) {
        expect(ids(await things.findShared(filter, options)), JSON.stringify([filter, options])).to.deep.equal(ids(await things.find(filter, options)));
      }
      await things.update({ _id: 'b' }, { name: 'Beta 2' });
      expect((await things.findShared({ _id: 'b' }))[0]).to.deep.include({ name: 'Beta 2', tags: [] });
    });

    it('updates with $set and $unset, returning how many matched', async () => {
      expect(await things.update({ _id: 'a' }, { name: 'Alpha 2', note: 'n' })).to.equal(1);
      expect(await things.findById('a')).to.deep.include({ name: 'Alpha 2', note: 'n', n: 1 });
      expect(await things.update({ _id: 'a' }, {}, ['note', 'email'])).to.equal(1);
      const a = (await things.findById('a'))!;
      expect(a).not.to.have.property('note');
      expect(a).not.to.have.property('email');
      expect(await things.update({ tags: 'blue' }, { note: 'blue' })).to.equal(2);
      expect(ids(await things.find({ note: 'blue' }))).to.deep.equal(['a', 'd']);
      expect(await things.update({ _id: 'zzz' }, { note: 'x' })).to.equal(0);
      // Compare-and-set: the filter decides, so of two claims only one passes.
      expect(await things.update({ _id: 'b', 'value.done': true }, { value: { done: false } })).to.equal(1);
      expect(await things.update({ _id: 'b', 'value.done': true }, { value: { done: false } })).to.equal(0);
      expect(await things.update({ _id: 'b', note: { $exists: false } }, { note: 'claimed' })).to.equal(1);
      expect(await things.update({ _id: 'b', note: { $exists: false } }, { note: 'again' })).to.equal(0);
    });

    it('replaces a whole document when the filter matches', async () => {
      expect(await things.replace({ _id: 'c' }, { _id: 'c', name: 'Gamma 2', nameKey: 'gamma2' })).to.equal(true);
      const c = (await things.findById('c'))!;
      expect(c).to.deep.include({ name: 'Gamma 2', nameKey: 'gamma2' });
      expect(c).not.to.have.property('n');
      expect(c).not.to.have.property('email');
      expect(await things.replace({ _id: 'zzz' }, { _id: 'zzz', name: 'x', nameKey: 'x' })).to.equal(false);
      expect(await things.findById('zzz')).to.equal(null);
    });

    it('replaces and deletes a document only over the version it holds (replaceVersion, deleteVersion)', async () => {
      const at = (value: string) => ({ id: 'c', field: 'name', value });
      expect(await things.replaceVersion(at('Gamma'), { _id: 'c', name: 'Gamma 2', nameKey: 'gamma' })).to.equal(true);
      expect(await things.replaceVersion(at('Gamma'), { _id: 'c', name: 'Gamma 3', nameKey: 'gamma' })).to.equal(false);
      expect(await things.deleteVersion(at('Gamma'))).to.equal(false);
      expect((await things.findById('c'))?.name).to.equal('Gamma 2');
      expect(await things.deleteVersion(at('Gamma 2'))).to.equal(true);
      expect(await things.findById('c')).to.equal(null);
      expect(await things.replaceVersion(at('Gamma 2'), { _id: 'c', name: 'Gamma 4', nameKey: 'gamma' })).to.equal(false);
      expect(await things.findById('c')).to.equal(null);
    });

    it('deletes by filter, returning how many went', async () => {
      expect(await things.delete({ tags: 'blue' })).to.equal(2);
      expect(await things.delete({ _id: 'a' })).to.equal(0);
      expect(ids(await things.find({}))).to.deep.equal(['b', 'c']);
      expect(await things.delete({})).to.equal(2);
      expect(await things.count({})).to.equal(0);
    });

    it('unique indexes refuse duplicates with DuplicateKeyError naming the field, and change nothing', async () => {
      const err = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
      const dupName = await err(things.insert({ _id: 'e', name: 'ALPHA', nameKey: 'alpha' }));
      expect(dupName).to.be.instanceOf(DuplicateKeyError);
      expect((dupName as DuplicateKeyError).field).to.equal('nameKey');
      expect(await things.findById('e')).to.equal(null);

      const dupEmail = await err(things.insert({ _id: 'e', name: 'E', nameKey: 'e', email: 'c@x' }));
      expect((dupEmail as DuplicateKeyError).field).to.equal('email');
      const dupId = await err(things.insert({ _id: 'a', name: 'A2', nameKey: 'a2' }));
      expect((dupId as DuplicateKeyError).field).to.equal('_id');

      const dupUpdate = await err(things.update({ _id: 'b' }, { nameKey: 'gamma' }));
      expect((dupUpdate as DuplicateKeyError).field).to.equal('nameKey');
      expect((await things.findById('b'))!.nameKey).to.equal('beta');
      // Setting a unique field to its own value is no clash; the clash is named, not the unchanged field.
      const mixed = await err(things.update({ _id: 'a' }, { nameKey: 'alpha', email: 'c@x' }));
      expect((mixed as DuplicateKeyError).field).to.equal('email');
      expect((await things.findById('a'))!.email).to.equal('a@x');
      expect(await things.update({ _id: 'a' }, { nameKey: 'alpha', name: 'Alpha!' })).to.equal(1);

      const dupReplace = await err(things.replace({ _id: 'd' }, { _id: 'd', name: 'D', nameKey: 'beta' }));
      expect((dupReplace as DuplicateKeyError).field).to.equal('nameKey');
      expect((await things.findById('d'))!.nameKey).to.equal('delta');

      // Sparse: any number of documents may lack the field.
      await things.insert({ _id: 'f', name: 'F', nameKey: 'f' });
      expect(await things.count({ email: { $exists: false } })).to.equal(3);
    });

    it('refuses undefined in filters (engines disagree on what it matches) and stores no undefined field', async () => {
      const err = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
      for (const attempt of [things.find({ email: undefined }), things.findOne({ $or: [{ n: undefined }] }), things.count({ n: { $gt: undefined } }), things.update({ email: undefined }, { n: 9 }), things.delete({ note: undefined })]) {
        expect(await err(attempt)).to.be.instanceOf(UndefinedInFilterError);
      }
      expect(await things.count({ n: 9 })).to.equal(0);
      expect(await things.count({})).to.equal(4);
      await things.insert({ _id: 'u', name: 'U', nameKey: 'u', note: undefined, value: { done: true, label: undefined } });
      expect(await things.count({ note: { $exists: false }, _id: 'u' })).to.equal(1);
      expect((await things.findById('u'))!.value).to.deep.equal({ done: true });
      expect(await things.update({ _id: 'a' }, { email: undefined })).to.equal(1);
      expect(await things.findById('a')).to.not.have.property('email');
    });
  });

  describe('backup records', () => {
    it('opens the backup collections with their indexes: destination names unique regardless of case', async () => {
      const repos = await openRepositories(contract.adapter);
      expect(collectionIndexes.backups.map((i) => i.field)).to.include.members(['serverId', 'scheduleId']);
      const name = `dest-${seq++}`;
      await repos.backupDestinations.insert({ _id: `${name}-1`, name, nameKey: name, kind: 'CONTROLLER', builtin: false, createdAt: '2030-01-01T00:00:00.000Z' });
      const dup = await repos.backupDestinations.insert({ _id: `${name}-2`, name: name.toUpperCase(), nameKey: name, kind: 'NODE_DIRECTORY', path: '/b', builtin: false, createdAt: '2030-01-01T00:00:00.000Z' })
        .then(() => undefined, (e: unknown) => e);
      expect(dup).to.be.instanceOf(DuplicateKeyError);
      await repos.backupSchedules.insert({ _id: `${name}-s`, serverId: 's1', teamId: 't1', cron: '0 * * * *', destinationId: `${name}-1`, retain: 3, nextRunAt: '2030-01-01T01:00:00.000Z', createdAt: '2030-01-01T00:00:00.000Z' });
      expect(await repos.backupSchedules.count({ destinationId: `${name}-1` })).to.equal(1);
    });
  });
});
