import { expect } from 'chai';
import { DuplicateKeyError } from '../../src/controller/store/collection.js';
import type { AuditLog } from '../../src/controller/store/records.js';
import { describeStoreContract, thingIndexes, type Thing } from '../support/store-contract.js';

describeStoreContract('audit log, persistence across a reopen', (contract) => {
  const { c, clock } = contract;
  let seq = 0;

  describe('audit log', () => {
    let log: AuditLog;
    // A day ago, whole minutes: the events below are in the past, so one stamped by the clock comes after them.
    const t0 = Math.floor((clock.now().getTime() - 24 * 3600_000) / 60_000) * 60_000;
    const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
    const u1 = '01900000-0000-7000-8000-000000000001';
    const u2 = '01900000-0000-7000-8000-000000000002';
    before(async () => {
      log = await contract.adapter.openAuditLog();
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

  describe('persistence across a reopen', () => {
    it('takes the indexes declared at open: a changed option and a dropped index do not stop start-up', async () => {
      const name = `reindex${seq++}`;
      const before = await contract.adapter.openCollection<Thing>(name, [{ field: 'nameKey', unique: true }, { field: 'n' }]);
      await before.insert({ _id: 'r1', name: 'R', nameKey: 'r', n: 1 });
      await contract.adapter.close();
      contract.adapter = await c.open(clock);
      const after = await contract.adapter.openCollection<Thing>(name, [{ field: 'nameKey' }, { field: 'email', unique: true, sparse: true }]);
      await after.insert({ _id: 'r2', name: 'R again', nameKey: 'r', email: 'r@x' });
      const dup = await after.insert({ _id: 'r3', name: 'R3', nameKey: 'r3', email: 'r@x' }).then(() => undefined, (e: unknown) => e);
      expect(dup).to.be.instanceOf(DuplicateKeyError);
      expect(await after.count({ nameKey: 'r' })).to.equal(2);
    });

    it('keeps documents, unique indexes and the audit log (ids continue)', async () => {
      const name = `persist${seq++}`;
      const col = await contract.adapter.openCollection<Thing>(name, thingIndexes);
      await col.insert({ _id: 'p1', name: 'P', nameKey: 'p', n: 1 });
      await col.update({ _id: 'p1' }, { n: 2 });
      await col.insert({ _id: 'p2', name: 'Q', nameKey: 'q' });
      await col.delete({ _id: 'p2' });
      const log = await contract.adapter.openAuditLog();
      const last = (await log.search({ limit: 1 }))[0];
      await contract.adapter.close();

      contract.adapter = await c.open(clock);
      const again = await contract.adapter.openCollection<Thing>(name, thingIndexes);
      expect(await again.findById('p1')).to.deep.include({ n: 2 });
      expect(await again.findById('p2')).to.equal(null);
      const dup = await again.insert({ _id: 'p3', name: 'P', nameKey: 'p' }).then(() => undefined, (e: unknown) => e);
      expect(dup).to.be.instanceOf(DuplicateKeyError);
      const log2 = await contract.adapter.openAuditLog();
      expect((await log2.search({ limit: 1 }))[0]).to.deep.equal(last);
      const next = await log2.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'y', outcome: 'SUCCESS', details: {} });
      expect(next.id).to.equal(last.id + 1);
    });
  });
});
