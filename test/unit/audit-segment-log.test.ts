import { expect } from 'chai';
import { appendFile, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventKeys, queryKeys } from '../../src/controller/store/embedded/audit/block.js';
import { OpenPostings } from '../../src/controller/store/embedded/audit/open-postings.js';
import { encodePostings } from '../../src/controller/store/embedded/audit/posting-file.js';
import { importLegacyAuditFile } from '../../src/controller/store/embedded/audit/legacy-import.js';
import { AuditSegmentLog, type SegmentLogOptions } from '../../src/controller/store/embedded/audit/segment-log.js';
import type { StoreRepair } from '../../src/controller/store/embedded/torn-tail.js';
import type { AuditEventRecord, AuditQuery, NewAuditEvent } from '../../src/controller/store/records.js';
import type { Clock } from '../../src/shared/clock.js';
import { expectedAuditIds } from '../support/audit-oracle.js';

const hour = 3600_000;
const t0 = Date.parse('2030-03-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const actors = ['01900000-0000-7000-8000-00000000000a', '01900000-0000-7000-8000-00000000000b', '01900000-0000-7000-8000-00000000000c'];

/** A varied event: i picks its actor, action, target and outcome, so every filter has several values. */
function sample(i: number, occurredAt?: string): NewAuditEvent {
  return {
    actorKind: i % 4 === 3 ? 'SYSTEM' : 'USER',
    ...(i % 4 === 3 ? {} : { actorUserId: actors[i % 3] }),
    action: ['server.start', 'server.stop', 'team.create', 'file.write', 'user.update'][i % 5],
    targetKind: i % 7 === 0 ? 'team' : 'server',
    targetId: `target-${i % 11}`,
    outcome: i % 13 === 0 ? 'DENIED' : i % 17 === 0 ? 'FAILED' : 'SUCCESS',
    // Another event's filter value inside details: a line holding it is not a match by that alone.
    details: { i, note: 'with "quotes" and target-3 inside', other: `target-${(i + 1) % 11}`, who: actors[(i + 1) % 3] },
    ...(occurredAt ? { occurredAt } : {}),
  };
}

/** A segment's posting file as versions before target pairs wrote it: the fields' keys only, under the old magic. */
async function postingsWithoutTargetPairs(segmentFile: string): Promise<Buffer> {
  const bytes = await readFile(segmentFile);
  const postings = new OpenPostings();
  let events = 0;
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    const event = JSON.parse(bytes.toString('utf8', start, end)) as AuditEventRecord;
    // With only the kind and id given, the query's one key is the event's target pair.
    const [pair] = queryKeys({ targetKind: event.targetKind, targetId: event.targetId, limit: 1 }).withTargetPairs;
    postings.add(start, eventKeys(event).filter((key) => key !== pair));
    events += 1;
    start = end + 1;
  }
  const file = encodePostings(postings.entries(), bytes.length, events);
  file.write('CAIRNPL1', 0, 'latin1');
  return file;
}

describe('AuditSegmentLog: the embedded audit log on disk', () => {
  let dir: string;
  let repairs: StoreRepair[];
  let now: number;
  const clock: Clock = { now: () => new Date(now) };
  // Small blocks and segments so a few hundred events span many of both.
  const small: SegmentLogOptions = { blockLines: 8, segmentEvents: 50 };
  const openLog = (options = small) => AuditSegmentLog.open(dir, clock, (r) => repairs.push(r), options);
  const segmentFiles = async () => (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-audit-'));
    repairs = [];
    now = t0 + 10 * 24 * hour;
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  async function fill(log: AuditSegmentLog, n: number, spacingMs = 60_000): Promise<AuditEventRecord[]> {
    const events: AuditEventRecord[] = [];
    for (let i = 0; i < n; i++) events.push(await log.append(sample(i, at(i * spacingMs))));
    return events;
  }

  it('appends with ids from 1 and answers every filter, alone and combined, exactly as a scan of all events would', async () => {
    const log = await openLog();
    const events = await fill(log, 400, 7 * 60_000);
    expect(events.map((e) => e.id)).to.deep.equal(Array.from({ length: 400 }, (_, i) => i + 1));
    expect((await segmentFiles()).length).to.be.greaterThan(5);
    const queries: AuditQuery[] = [
      { limit: 50 },
      { actorUserId: actors[1], limit: 1000 },
      { targetId: 'target-3', limit: 1000 },
      { targetId: 'target-3', targetKind: 'team', limit: 1000 },
      { action: 'file.write', outcome: 'DENIED', limit: 1000 },
      { outcome: 'FAILED', actorUserId: actors[2], limit: 7 },
      { since: at(100 * 7 * 60_000), until: at(120 * 7 * 60_000), limit: 1000 },
      { since: at(100 * 7 * 60_000 + 1), until: at(100 * 7 * 60_000 + 2), limit: 1000 },
      { since: at(50 * 7 * 60_000), action: 'server.stop', beforeId: 200, limit: 10 },
      { targetId: 'no-such', limit: 10 },
      { targetId: '"target-3"', limit: 10 },
    ];
    for (const q of queries) expect((await log.search(q)).map((e) => e.id), JSON.stringify(q)).to.deep.equal(expectedAuditIds(events, q));
    const found = await log.search({ targetId: 'target-4', limit: 1 });
    expect(found[0]).to.deep.equal(events.filter((e) => e.targetId === 'target-4').at(-1));
    await log.close();
  });

  it('pages newest first by cursor through every match, and a reopen (from the saved indexes) answers the same', async () => {
    const log = await openLog();
    const events = await fill(log, 300);
    const walk = async (l: AuditSegmentLog, q: Omit<AuditQuery, 'limit' | 'beforeId'>) => {
      const ids: number[] = [];
      let beforeId: number | undefined;
      for (;;) {
        const page = await l.search({ ...q, limit: 9, ...(beforeId === undefined ? {} : { beforeId }) });
        ids.push(...page.map((e) => e.id));
        if (page.length < 9) return ids;
        beforeId = page.at(-1)!.id;
      }
    };
    const all = await walk(log, {});
    expect(all).to.deep.equal(events.map((e) => e.id).reverse());
    const actor = await walk(log, { actorUserId: actors[0] });
    expect(actor).to.deep.equal(expectedAuditIds(events, { actorUserId: actors[0], limit: 1000 }));
    await log.close();

    const files = await readdir(dir);
    expect(files.filter((n) => n.endsWith('.idx')).length, 'every segment but the open one keeps its index').to.equal(files.filter((n) => n.endsWith('.jsonl')).length - 1);
    const again = await openLog();
    expect(await walk(again, {})).to.deep.equal(all);
    expect(await walk(again, { actorUserId: actors[0] })).to.deep.equal(actor);
    expect((await again.append(sample(1))).id).to.equal(301);
    await again.close();

    // A lost or stale index is rebuilt from its segment.
    await unlink(join(dir, `${(await segmentFiles())[0]}.idx`));
    await writeFile(join(dir, `${(await segmentFiles())[1]}.idx`), '{"size":1,"blocks":[]}');
    const third = await openLog();
    expect((await walk(third, {})).length).to.equal(301);
    expect(repairs).to.deep.equal([]);
    await third.close();
  });

  it('drops a torn last line with a repair naming the file, and keeps everything before it', async () => {
    const log = await openLog();
    const events = await fill(log, 20);
    await log.close();
    const active = join(dir, (await segmentFiles()).at(-1)!);
    await appendFile(active, '{"id":21,"occurredAt":"2030-');
    const again = await openLog();
    expect(repairs).to.deep.equal([{ file: active, dropped: 'a half-written last event (28 bytes)' }]);
    expect((await again.search({ limit: 1 }))[0]).to.deep.equal(events.at(-1));
    const next = await again.append(sample(5));
    expect(next.id).to.equal(21);
    await again.close();
    expect((await readFile(active, 'utf8')).endsWith('}\n')).to.equal(true);
    const third = await openLog();
    expect((await third.search({ limit: 2 })).map((e) => e.id)).to.deep.equal([21, 20]);
    await third.close();
  });

  it('skips an unreadable line in the middle of a segment and names it', async () => {
    const log = await openLog();
    await fill(log, 5);
    await log.close();
    const active = join(dir, (await segmentFiles()).at(-1)!);
    await appendFile(active, '{"id": not json}\n');
    const again = await openLog();
    expect(repairs).to.deep.equal([{ file: active, dropped: '1 unreadable event line(s): 6' }]);
    await again.append(sample(9));
    expect((await again.search({ limit: 100 })).map((e) => e.id)).to.deep.equal([6, 5, 4, 3, 2, 1]);
    await again.close();
  });

  it('prunes whole days older than the cutoff; ids carry on even when every event was pruned and the log reopened', async () => {
    const log = await openLog({ blockLines: 8, segmentEvents: 1000 });
    // Six events a day for five days: one segment a day.
    const events: AuditEventRecord[] = [];
    for (let day = 0; day < 5; day++) for (let i = 0; i < 6; i++) events.push(await log.append(sample(i, at(day * 24 * hour + i * hour))));
    expect((await segmentFiles()).length).to.equal(5);
    expect(await log.prune(at(2 * 24 * hour + 3 * hour))).to.equal(12);
    expect((await segmentFiles()).length).to.equal(3);
    expect((await log.search({ limit: 100 })).map((e) => e.id)).to.deep.equal(events.slice(12).map((e) => e.id).reverse());
    expect(await log.prune(at(10 * 24 * hour))).to.equal(18);
    expect(await log.search({ limit: 100 })).to.deep.equal([]);
    await log.close();
    const again = await openLog();
    expect(await again.search({ limit: 100 })).to.deep.equal([]);
    const next = await again.append(sample(1));
    expect(next.id).to.equal(31);
    expect(next.occurredAt).to.equal(new Date(now).toISOString());
    expect((await again.search({ limit: 100 })).map((e) => e.id)).to.deep.equal([31]);
    await again.close();
  });

  it('never lets ids or occurredAt go backwards under concurrent writes, even when the clock does; searches meanwhile see each event once', async () => {
    const log = await openLog();
    const writes: Promise<AuditEventRecord>[] = [];
    const seen: number[][] = [];
    for (let i = 0; i < 500; i++) {
      now = t0 + 10 * 24 * hour + (i % 10 === 0 ? -hour : i * 1000);
      writes.push(log.append(sample(i)));
      if (i % 50 === 0) seen.push((await log.search({ limit: 1000 })).map((e) => e.id));
    }
    const written = await Promise.all(writes);
    for (let i = 1; i < written.length; i++) {
      expect(written[i].id).to.equal(written[i - 1].id + 1);
      expect(written[i].occurredAt >= written[i - 1].occurredAt).to.equal(true);
    }
    for (const ids of seen) expect(ids).to.deep.equal(Array.from({ length: ids.length }, (_, k) => ids.length - k));
    expect((await log.search({ limit: 1000 })).map((e) => e.id)).to.deep.equal(written.map((e) => e.id).reverse());
    await log.close();
    const again = await openLog();
    expect((await again.search({ limit: 1000 })).map((e) => e.id)).to.deep.equal(written.map((e) => e.id).reverse());
    await again.close();
  });

  it('answers a target by kind and id from posting files written before target pairs were kept (CAIRNPL1) as from new ones', async () => {
    const log = await openLog();
    const events = await fill(log, 300);
    await log.close();
    const queries: AuditQuery[] = [
      { targetKind: 'team', targetId: 'target-3', limit: 1000 },
      { targetKind: 'server', targetId: 'target-3', outcome: 'DENIED', limit: 1000 },
      { targetKind: 'server', targetId: 'target-5', actorUserId: actors[1], limit: 4 },
    ];
    const sealed = (await segmentFiles()).slice(0, -1);
    for (const name of sealed) {
      const post = join(dir, `${name}.post`);
      expect((await readFile(post)).subarray(0, 8).toString()).to.equal('CAIRNPL2');
      await writeFile(post, await postingsWithoutTargetPairs(join(dir, name)));
    }
    const again = await openLog();
    for (const q of queries) expect((await again.search(q)).map((e) => e.id), JSON.stringify(q)).to.deep.equal(expectedAuditIds(events, q));
    expect(repairs).to.deep.equal([]);
    await again.close();
  });

  it('imports the single-file log of earlier versions, ids kept, and removes it', async () => {
    const legacy = join(dir, '..', `${dir.split('/').at(-1)}-legacy.jsonl`);
    const old = Array.from({ length: 40 }, (_, i) => ({ ...sample(i, at(i * hour)), id: i + 1, occurredAt: at(i * hour) }));
    await writeFile(legacy, old.map((e) => JSON.stringify(e) + '\n').join('') + '{"id":41,"occ');
    const log = await openLog();
    expect(await importLegacyAuditFile(legacy, log, (r) => repairs.push(r))).to.equal(40);
    expect(repairs).to.deep.equal([{ file: legacy, dropped: 'a half-written last event (13 bytes)' }]);
    expect(await log.search({ limit: 100 })).to.deep.equal([...old].reverse());
    expect((await log.append(sample(0))).id).to.equal(41);
    expect(await readdir(join(dir, '..'))).not.to.include(legacy.split('/').at(-1));
    await log.close();
  });
});
