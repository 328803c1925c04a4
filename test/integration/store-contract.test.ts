import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ChecksumMismatchError, collectGarbage, type BlobStore } from '../../src/shared/backup/blob-store.js';
import { DuplicateKeyError, type Collection } from '../../src/controller/store/collection.js';
import { UndefinedInFilterError } from '../../src/controller/store/document-rules.js';
import { EmbeddedAdapter } from '../../src/controller/store/embedded/embedded-adapter.js';
import { databaseNameOf, MongoAdapter } from '../../src/controller/store/mongo/mongo-adapter.js';
import type { AuditLog } from '../../src/controller/store/records.js';
import { collectionIndexes, openRepositories, type StoreAdapter } from '../../src/controller/store/repositories.js';
import type { StoreRepair } from '../../src/controller/store/embedded/torn-tail.js';
import { TestClock } from '../support/clock.js';
import { freshDatabase, withDatabase } from '../support/mongo-db.js';

/**
 * One contract, run against every adapter: the embedded store always, MongoDB when MONGODB_URI is set.
 * Each suite opens its own data dir (or database) and drops it afterwards.
 */
interface AdapterCase {
  name: string;
  open(clock: TestClock): Promise<StoreAdapter>;
  /** Files of the embedded store, for the crash tests; absent for MongoDB. */
  files?: { collection(name: string): string; audit(): string; auditSegments(): string[]; repairs: StoreRepair[] };
  cleanup(): Promise<void>;
}

interface Thing {
  _id: string;
  name: string;
  nameKey: string;
  email?: string;
  n?: number;
  tags?: string[];
  value?: { done: boolean; label?: string };
  note?: string;
}

const thingIndexes = [{ field: 'nameKey', unique: true }, { field: 'email', unique: true, sparse: true }, { field: 'n' }];

function embeddedCase(): AdapterCase {
  let dir = '';
  const repairs: StoreRepair[] = [];
  return {
    name: 'embedded',
    async open(clock) {
      dir ||= await mkdtemp(join(tmpdir(), 'cairn-store-'));
      return EmbeddedAdapter.open(dir, clock, (repair) => repairs.push(repair));
    },
    files: {
      collection: (name) => join(dir, 'store', `${name}.db`),
      // The segment being appended to: the newest file of the audit directory.
      audit: () => join(dir, 'store', 'audit', readdirSync(join(dir, 'store', 'audit')).filter((n) => n.endsWith('.jsonl')).sort().at(-1)!),
      auditSegments: () => readdirSync(join(dir, 'store', 'audit')).filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, 'store', 'audit', n)),
      repairs,
    },
    cleanup: async () => rm(dir, { recursive: true, force: true }),
  };
}

function mongoCase(uri: string): AdapterCase {
  const db = freshDatabase(uri, 'cairn_contract');
  return {
    name: 'mongodb',
    open: (clock) => MongoAdapter.open(db.uri, clock),
    cleanup: () => db.drop(),
  };
}

const cases: AdapterCase[] = [embeddedCase()];
if (process.env.MONGODB_URI) cases.push(mongoCase(process.env.MONGODB_URI));
else console.log('store contract: MongoDB adapter not run (MONGODB_URI is not set)');

const ids = (docs: { _id: string }[]) => docs.map((d) => d._id).sort();

for (const c of cases) {
  describe(`store contract: ${c.name} adapter`, () => {
    const clock = new TestClock();
    let adapter: StoreAdapter;
    let things: Collection<Thing>;
    let seq = 0;
    const fresh = async () => adapter.openCollection<Thing>(`things${seq++}`, thingIndexes);

    before(async () => {
      adapter = await c.open(clock);
    });
    after(async () => {
      await adapter.close();
      await c.cleanup();
    });

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

    describe('audit log', () => {
      let log: AuditLog;
      // A day ago, whole minutes: the events below are in the past, so one stamped by the clock comes after them.
      const t0 = Math.floor((clock.now().getTime() - 24 * 3600_000) / 60_000) * 60_000;
      const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
      const u1 = '01900000-0000-7000-8000-000000000001';
      const u2 = '01900000-0000-7000-8000-000000000002';
      before(async () => {
        log = await adapter.openAuditLog();
        // 30 events, one a minute: actors alternate, every third is DENIED, targets cycle over five teams.
        for (let i = 0; i < 30; i++) {
          const event = await log.append({
            actorKind: i % 5 === 4 ? 'API_TOKEN' : 'USER',
            actorUserId: i % 2 === 0 ? u1 : u2,
            action: i % 3 === 0 ? 'team.delete' : 'team.create',
            targetKind: i % 10 === 9 ? 'role' : 'team',
            targetId: `t${i % 5}`,
            outcome: i % 3 === 2 ? 'DENIED' : 'SUCCESS',
            details: { i, nested: { ok: true }, 'key.with.dots': 1 },
            occurredAt: at(i),
          });
          expect(event.id).to.equal(i + 1);
          expect(event.occurredAt).to.equal(at(i));
        }
      });

      it('gives increasing integer ids and stamps occurredAt from the clock when not given', async () => {
        const before = clock.now().toISOString();
        const e = await log.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'x', outcome: 'SUCCESS', details: {} });
        expect(e.id).to.equal(31);
        expect(e.occurredAt >= before).to.equal(true);
        const found = await log.search({ action: 'system.note', limit: 5 });
        expect(found).to.have.length(1);
        expect(found[0]).to.deep.include({ id: 31, actorKind: 'SYSTEM', targetId: 'x' });
        expect(found[0]).not.to.have.property('actorUserId');
      });

      it('searches newest first with a limit, keeping details intact', async () => {
        const rows = await log.search({ limit: 5, until: at(30) });
        expect(rows.map((r) => r.id)).to.deep.equal([30, 29, 28, 27, 26]);
        expect(rows[0].details).to.deep.equal({ i: 29, nested: { ok: true }, 'key.with.dots': 1 });
        expect(rows[0]).to.include({ actorKind: 'API_TOKEN', actorUserId: u2, targetId: 't4', outcome: 'DENIED' });
      });

      it('filters by each field alone and combined', async () => {
        const idsOf = async (q: object) => (await log.search({ limit: 100, until: at(30), ...q })).map((r) => r.id);
        expect(await idsOf({ actorUserId: u1 })).to.deep.equal([29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1]);
        expect(await idsOf({ targetKind: 'role' })).to.deep.equal([30, 20, 10]);
        expect(await idsOf({ targetId: 't3' })).to.deep.equal([29, 24, 19, 14, 9, 4]);
        expect((await idsOf({ action: 'team.delete' })).length).to.equal(10);
        expect(await idsOf({ outcome: 'DENIED' })).to.deep.equal([30, 27, 24, 21, 18, 15, 12, 9, 6, 3]);
        expect(await idsOf({ outcome: 'DENIED', actorUserId: u1 })).to.deep.equal([27, 21, 15, 9, 3]);
        expect(await idsOf({ outcome: 'DENIED', actorUserId: u1, targetId: 't0' })).to.deep.equal([21]);
        expect(await idsOf({ targetId: 'no-such' })).to.deep.equal([]);
        expect(await idsOf({ action: 'team.create', targetKind: 'role', outcome: 'DENIED' })).to.deep.equal([30]);
      });

      it('since is inclusive, until exclusive', async () => {
        const idsOf = async (q: object) => (await log.search({ limit: 100, ...q })).map((r) => r.id);
        expect(await idsOf({ since: at(10), until: at(13) })).to.deep.equal([13, 12, 11]);
        expect(await idsOf({ since: at(10), until: at(10) })).to.deep.equal([]);
        expect(await idsOf({ since: at(28), until: at(30) })).to.deep.equal([30, 29]);
        expect(await idsOf({ until: at(2) })).to.deep.equal([2, 1]);
        expect(await idsOf({ since: at(5), until: at(20), targetId: 't0' })).to.deep.equal([16, 11, 6]);
        expect(await idsOf({ since: new Date(t0 + 10 * 60_000 + 1).toISOString(), until: at(12) })).to.deep.equal([12]);
      });

      it('pages with beforeId, alone and with filters and time windows', async () => {
        expect((await log.search({ limit: 3, beforeId: 10 })).map((r) => r.id)).to.deep.equal([9, 8, 7]);
        expect((await log.search({ limit: 3, beforeId: 1 })).map((r) => r.id)).to.deep.equal([]);
        expect((await log.search({ limit: 3, beforeId: 20, outcome: 'DENIED' })).map((r) => r.id)).to.deep.equal([18, 15, 12]);
        expect((await log.search({ limit: 10, beforeId: 15, since: at(10) })).map((r) => r.id)).to.deep.equal([14, 13, 12, 11]);
        // Walking every page gives every event once.
        const all: number[] = [];
        let beforeId: number | undefined;
        for (;;) {
          const page = await log.search({ limit: 7, until: at(30), ...(beforeId ? { beforeId } : {}) });
          all.push(...page.map((r) => r.id));
          if (page.length < 7) break;
          beforeId = page[page.length - 1].id;
        }
        expect(all).to.deep.equal(Array.from({ length: 30 }, (_, k) => 30 - k));
      });

      it('concurrent appends get distinct ids whose times never go backwards', async () => {
        const appended = await Promise.all(Array.from({ length: 25 }, (_, i) => log.append({ actorKind: 'SYSTEM', action: 'system.burst', targetKind: 'controller', targetId: `b${i}`, outcome: 'SUCCESS', details: {} })));
        const byId = [...appended].sort((a, b) => a.id - b.id);
        expect(new Set(byId.map((e) => e.id)).size).to.equal(25);
        for (let i = 1; i < byId.length; i++) expect(byId[i].occurredAt >= byId[i - 1].occurredAt, `event ${byId[i].id}`).to.equal(true);
        const stored = await log.search({ action: 'system.burst', limit: 25 });
        expect(stored.map((e) => e.id)).to.deep.equal(byId.map((e) => e.id).reverse());
      });
    });

    describe('backup records', () => {
      it('opens the backup collections with their indexes: destination names unique regardless of case', async () => {
        const repos = await openRepositories(adapter);
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

    describe('backup blob store', () => {
      const bytes = (n: number, seed: string) => Buffer.concat(Array.from({ length: Math.ceil(n / 32) }, (_, i) => createHash('sha256').update(`${seed}${i}`).digest())).subarray(0, n);
      const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      const chunks = (b: Buffer, size = 64 * 1024) => Readable.from(Array.from({ length: Math.ceil(b.length / size) || 1 }, (_, i) => b.subarray(i * size, (i + 1) * size)));
      const read = async (store: BlobStore, sha256: string) => {
        const parts: Buffer[] = [];
        for await (const part of store.readBlob(sha256)) parts.push(part as Buffer);
        return Buffer.concat(parts);
      };
      const list = async (items: AsyncIterable<string>) => {
        const out: string[] = [];
        for await (const item of items) out.push(item);
        return out.sort();
      };
      const manifest = (backupId: string, shas: string[]) => ({
        formatVersion: 1 as const, backupId, createdAt: '2030-01-01T00:00:00.000Z',
        entries: [{ path: 'world', type: 'DIRECTORY' as const, size: 0, mode: 0o755, sha256: '' }, ...shas.map((s, i) => ({ path: `world/f${i}`, type: 'FILE' as const, size: 1, mode: 0o644, sha256: s }))],
      });

      it('streams a blob in and out by sha256; a second put adds nothing; destinations are apart', async () => {
        const store = adapter.openBlobStore(`dest-${seq++}`);
        const other = adapter.openBlobStore(`dest-${seq++}`);
        const content = bytes(3 * 1024 * 1024 + 17, 'big');
        expect(await store.hasBlob(sha(content))).to.equal(false);
        const added = await store.putBlob(sha(content), chunks(content));
        expect(added).to.be.greaterThan(0);
        expect(await store.hasBlob(sha(content))).to.equal(true);
        expect(await other.hasBlob(sha(content))).to.equal(false);
        expect((await read(store, sha(content))).equals(content)).to.equal(true);
        expect(await store.putBlob(sha(content), chunks(content))).to.equal(0);
        expect(await list(store.listBlobs())).to.deep.equal([sha(content)]);
        const empty = Buffer.alloc(0);
        await store.putBlob(sha(empty), chunks(empty));
        expect((await read(store, sha(empty))).length).to.equal(0);
      });

      it('refuses content that is not what its name says, and keeps nothing of it', async () => {
        const store = adapter.openBlobStore(`dest-${seq++}`);
        const content = bytes(100_000, 'x');
        const wrong = 'b'.repeat(64);
        const error = await store.putBlob(wrong, chunks(content)).then(() => undefined, (e: unknown) => e);
        expect(error).to.be.instanceOf(ChecksumMismatchError);
        expect(await store.hasBlob(wrong)).to.equal(false);
        expect(await list(store.listBlobs())).to.deep.equal([]);
      });

      it('keeps manifests by backup id and collects the blobs no manifest references', async () => {
        const store = adapter.openBlobStore(`dest-${seq++}`);
        const [a, b, c] = ['a', 'b', 'c'].map((seed) => bytes(5000, seed));
        for (const blob of [a, b, c]) await store.putBlob(sha(blob), chunks(blob));
        await store.putManifest(manifest('backup-1', [sha(a), sha(b)]));
        await store.putManifest(manifest('backup-2', [sha(b)]));
        expect(await store.readManifest('backup-1')).to.deep.equal(manifest('backup-1', [sha(a), sha(b)]));
        expect(await store.readManifest('nope')).to.equal(undefined);
        expect(await list(store.listManifests())).to.deep.equal(['backup-1', 'backup-2']);
        expect(await collectGarbage(store)).to.equal(1);
        expect(await list(store.listBlobs())).to.deep.equal([sha(a), sha(b)].sort());
        await store.deleteManifest('backup-1');
        expect(await collectGarbage(store)).to.equal(1);
        expect(await list(store.listBlobs())).to.deep.equal([sha(b)]);
        expect(await list(store.listManifests())).to.deep.equal(['backup-2']);
      });
    });

    describe('persistence across a reopen', () => {
      it('takes the indexes declared at open: a changed option and a dropped index do not stop start-up', async () => {
        const name = `reindex${seq++}`;
        const before = await adapter.openCollection<Thing>(name, [{ field: 'nameKey', unique: true }, { field: 'n' }]);
        await before.insert({ _id: 'r1', name: 'R', nameKey: 'r', n: 1 });
        await adapter.close();
        adapter = await c.open(clock);
        const after = await adapter.openCollection<Thing>(name, [{ field: 'nameKey' }, { field: 'email', unique: true, sparse: true }]);
        await after.insert({ _id: 'r2', name: 'R again', nameKey: 'r', email: 'r@x' });
        const dup = await after.insert({ _id: 'r3', name: 'R3', nameKey: 'r3', email: 'r@x' }).then(() => undefined, (e: unknown) => e);
        expect(dup).to.be.instanceOf(DuplicateKeyError);
        expect(await after.count({ nameKey: 'r' })).to.equal(2);
      });

      it('keeps documents, unique indexes and the audit log (ids continue)', async () => {
        const name = `persist${seq++}`;
        const col = await adapter.openCollection<Thing>(name, thingIndexes);
        await col.insert({ _id: 'p1', name: 'P', nameKey: 'p', n: 1 });
        await col.update({ _id: 'p1' }, { n: 2 });
        await col.insert({ _id: 'p2', name: 'Q', nameKey: 'q' });
        await col.delete({ _id: 'p2' });
        const log = await adapter.openAuditLog();
        const last = (await log.search({ limit: 1 }))[0];
        await adapter.close();

        adapter = await c.open(clock);
        const again = await adapter.openCollection<Thing>(name, thingIndexes);
        expect(await again.findById('p1')).to.deep.include({ n: 2 });
        expect(await again.findById('p2')).to.equal(null);
        const dup = await again.insert({ _id: 'p3', name: 'P', nameKey: 'p' }).then(() => undefined, (e: unknown) => e);
        expect(dup).to.be.instanceOf(DuplicateKeyError);
        const log2 = await adapter.openAuditLog();
        expect((await log2.search({ limit: 1 }))[0]).to.deep.equal(last);
        const next = await log2.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'y', outcome: 'SUCCESS', details: {} });
        expect(next.id).to.equal(last.id + 1);
      });
    });

    if (c.files) {
      const files = c.files;
      describe('crash safety (a half-written last line)', () => {
        it('cuts a torn tail off a collection file and the audit file; everything before it is intact', async () => {
          const name = `crash${seq++}`;
          const col = await adapter.openCollection<Thing>(name, thingIndexes);
          for (let i = 0; i < 5; i++) await col.insert({ _id: `k${i}`, name: `K${i}`, nameKey: `k${i}`, n: i });
          await col.update({ _id: 'k0' }, { note: 'updated' });
          const log = await adapter.openAuditLog();
          const last = await log.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'before-crash', outcome: 'SUCCESS', details: {} });
          await adapter.close();

          await appendFile(files.collection(name), '{"_id":"k9","name":"K9","nameK');
          await appendFile(files.audit(), '{"id":' + (last.id + 1) + ',"occurredAt":"2030-');

          files.repairs.length = 0;
          adapter = await c.open(clock);
          const again = await adapter.openCollection<Thing>(name, thingIndexes);
          expect(ids(await again.find({}))).to.deep.equal(['k0', 'k1', 'k2', 'k3', 'k4']);
          expect(files.repairs).to.deep.include({ file: files.collection(name), dropped: 'a half-written last record (30 bytes)' });
          expect((await again.findById('k0'))!.note).to.equal('updated');
          expect(await again.findById('k9')).to.equal(null);
          expect(await readFile(files.collection(name), 'utf8')).not.to.include('"k9"');
          const log2 = await adapter.openAuditLog();
          expect((await log2.search({ limit: 1 }))[0]).to.deep.equal(last);
          expect(files.repairs.map((r) => r.file)).to.include(files.audit());
          expect(files.repairs.find((r) => r.file === files.audit())?.dropped).to.match(/^a half-written last event \(\d+ bytes\)$/);
          const next = await log2.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'after-crash', outcome: 'SUCCESS', details: {} });
          expect(next.id).to.equal(last.id + 1);
          expect((await readFile(files.audit(), 'utf8')).endsWith('\n')).to.equal(true);
          // Writes after recovery land on their own line and survive another reopen.
          await again.insert({ _id: 'k5', name: 'K5', nameKey: 'k5' });
          await adapter.close();
          adapter = await c.open(clock);
          const third = await adapter.openCollection<Thing>(name, thingIndexes);
          expect(await third.count({})).to.equal(6);
          expect((await (await adapter.openAuditLog()).search({ limit: 1 }))[0]).to.deep.equal(next);
        });

        it('skips an unreadable audit line in the middle, names it, and keeps every other event', async () => {
          await adapter.close();
          const before = (await Promise.all(files.auditSegments().map((f) => readFile(f, 'utf8')))).join('').split('\n').filter(Boolean).length;
          const activeLines = (await readFile(files.audit(), 'utf8')).split('\n').filter(Boolean).length;
          await appendFile(files.audit(), '{"id": not json}\n');
          files.repairs.length = 0;
          adapter = await c.open(clock);
          const log = await adapter.openAuditLog();
          expect(files.repairs).to.deep.equal([{ file: files.audit(), dropped: `1 unreadable event line(s): ${activeLines + 1}` }]);
          const appended = await log.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'after-bad-line', outcome: 'SUCCESS', details: {} });
          expect((await log.search({ limit: 1 }))[0]).to.deep.equal(appended);
          expect((await log.search({ limit: 1000 })).length).to.equal(before + 1);
        });

        it('opens a file that is only a torn line as empty', async () => {
          const name = `torn-only${seq++}`;
          await appendFile(files.collection(name), '{"_id":"x","na');
          const col = await adapter.openCollection<Thing>(name, thingIndexes);
          expect(await col.count({})).to.equal(0);
        });
      });
    }
  });
}

describe('MongoDB adapter: database name from the URI', () => {
  it('takes the path of single-host, multi-host and SRV URIs, and defaults to cairn', () => {
    expect(databaseNameOf('mongodb://localhost:27017/fleet')).to.equal('fleet');
    expect(databaseNameOf('mongodb://localhost:27017')).to.equal('cairn');
    expect(databaseNameOf('mongodb://localhost:27017/')).to.equal('cairn');
    expect(databaseNameOf('mongodb://u:p%40ss@h1:27017,h2:27017,h3:27017/fleet?replicaSet=rs0')).to.equal('fleet');
    expect(databaseNameOf('mongodb://h1,h2/?replicaSet=rs0')).to.equal('cairn');
    expect(databaseNameOf('mongodb+srv://cluster0.example.net/prod?retryWrites=true')).to.equal('prod');
    expect(withDatabase('mongodb://h1,h2/old?replicaSet=rs0', 'new')).to.equal('mongodb://h1,h2/new?replicaSet=rs0');
    expect(withDatabase('mongodb://u:p@h1/old', 'new')).to.equal('mongodb://u:p@h1/new?authSource=old');
    expect(withDatabase('mongodb://u:p@h1', 'new')).to.equal('mongodb://u:p@h1/new?authSource=admin');
  });
});
