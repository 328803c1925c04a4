import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditSegmentLog, type SegmentLogOptions } from '../../src/controller/store/embedded/audit/segment-log.js';
import type { StoreRepair } from '../../src/controller/store/embedded/torn-tail.js';
import type { AuditEventRecord, AuditQuery, NewAuditEvent } from '../../src/controller/store/records.js';
import type { Clock } from '../../src/shared/clock.js';
import { expectedAuditIds } from '../support/audit-oracle.js';

const hour = 3600_000;
const day = 24 * hour;
const t0 = Date.parse('2030-06-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const actors = ['01900000-0000-7000-8000-00000000000a', '01900000-0000-7000-8000-00000000000b'];

/** Event i of day d: common values everywhere, `rare-target` on every third day, one of them with a 40 KiB detail. */
function event(d: number, i: number): NewAuditEvent {
  const rare = d % 3 === 0 && i === 7;
  return {
    actorKind: 'USER',
    actorUserId: actors[i % 2],
    action: rare ? 'server.delete' : ['server.start', 'server.stop'][i % 2],
    targetKind: 'server',
    targetId: rare ? 'rare-target' : `common-${i % 5}`,
    outcome: i % 9 === 0 ? 'DENIED' : 'SUCCESS',
    details: rare && d === 9 ? { note: 'x'.repeat(40 * 1024) } : { i, d },
    occurredAt: at(d * day + i * 10 * 60_000),
  };
}

const queries: AuditQuery[] = [
  { targetId: 'rare-target', limit: 100 },
  { targetId: 'rare-target', limit: 3 },
  { targetId: 'rare-target', targetKind: 'server', action: 'server.delete', limit: 100 },
  { targetId: 'rare-target', since: at(4 * day), until: at(20 * day), limit: 100 },
  { targetId: 'rare-target', beforeId: 200, limit: 2 },
  { actorUserId: actors[0], outcome: 'DENIED', limit: 100 },
  { actorUserId: actors[0], action: 'server.stop', limit: 10 },
  { targetId: 'common-3', beforeId: 333, limit: 20 },
  { targetId: 'nowhere', limit: 10 },
  { limit: 30 },
];

describe('AuditSegmentLog posting lists: a rare value reads only its lines', () => {
  let dir: string;
  let repairs: StoreRepair[];
  const clock: Clock = { now: () => new Date(t0 + 40 * day) };
  const options: SegmentLogOptions = { blockLines: 4, segmentEvents: 1000 };
  const openLog = () => AuditSegmentLog.open(dir, clock, (r) => repairs.push(r), options);
  const files = async (suffix: string) => (await readdir(dir)).filter((n) => n.endsWith(suffix)).sort();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-audit-postings-'));
    repairs = [];
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  /** 31 days of 24 events, one segment a day; the last day's segment stays open. */
  async function fill(log: AuditSegmentLog): Promise<AuditEventRecord[]> {
    const events: AuditEventRecord[] = [];
    for (let d = 0; d <= 30; d++) for (let i = 0; i < 24; i++) events.push(await log.append(event(d, i)));
    return events;
  }

  async function answersLikeAScan(log: AuditSegmentLog, events: AuditEventRecord[]): Promise<void> {
    for (const q of queries) expect((await log.search(q)).map((e) => e.id), JSON.stringify(q)).to.deep.equal(expectedAuditIds(events, q));
  }

  it('finds a value spread over many day segments, sealed and open, without opening the segments that lack it', async () => {
    const log = await openLog();
    const events = await fill(log);
    expect(await files('.jsonl')).to.have.length(31);
    expect(await files('.post'), 'every sealed segment has its posting file').to.have.length(30);
    await answersLikeAScan(log, events);
    const found = await log.search({ targetId: 'rare-target', limit: 100 });
    expect(found.map((e) => e.occurredAt.slice(0, 10))).to.deep.equal(Array.from({ length: 11 }, (_, k) => at((30 - 3 * k) * day).slice(0, 10)));
    expect(found.find((e) => e.occurredAt.startsWith(at(9 * day).slice(0, 10)))!.details).to.deep.equal({ note: 'x'.repeat(40 * 1024) });
    await log.close();

    // A segment file replaced by a directory cannot be read: a search that opened one would fail.
    const holders = new Set(events.filter((e) => e.targetId === 'rare-target').map((e) => e.occurredAt.slice(0, 10)));
    const again = await openLog();
    const third = await openLog();
    for (const [n, name] of (await files('.jsonl')).slice(0, -1).entries()) {
      if (holders.has(at(n * day).slice(0, 10))) continue;
      await unlink(join(dir, name));
      await mkdir(join(dir, name));
    }
    expect((await again.search({ targetId: 'rare-target', limit: 100 })).map((e) => e.id)).to.deep.equal(found.map((e) => e.id));
    expect(await again.search({ targetId: 'nowhere', limit: 10 })).to.deep.equal([]);
    await again.close();
    // The check above can fail: a search that reaches such a segment (with no file of it open yet) is refused.
    const holder = (await files('.jsonl'))[27];
    await unlink(join(dir, holder));
    await mkdir(join(dir, holder));
    let refused: unknown;
    await third.search({ targetId: 'rare-target', limit: 100 }).catch((e: unknown) => (refused = e));
    expect((refused as NodeJS.ErrnoException | undefined)?.code).to.equal('EISDIR');
    await third.close();
  });

  it('rebuilds at start a sealed segment whose posting file a crash kept from being written (or left torn)', async () => {
    const log = await openLog();
    const events = await fill(log);
    await log.close();
    const segments = await files('.jsonl');
    // Crashed right after sealing: neither the posting file nor the index was saved.
    await unlink(join(dir, `${segments[3]}.post`));
    await unlink(join(dir, `${segments[3]}.idx`));
    // Crashed while writing the posting file: only its temporary file is there.
    const post7 = join(dir, `${segments[7]}.post`);
    await writeFile(`${post7}.tmp`, (await readFile(post7)).subarray(0, 100));
    await unlink(post7);
    // A posting file cut short, and one that describes a different size of its segment.
    const post12 = join(dir, `${segments[12]}.post`);
    await truncate(post12, (await stat(post12)).size - 4);
    await writeFile(join(dir, `${segments[15]}.post`), await readFile(join(dir, `${segments[16]}.post`)));
    // Sealed by an earlier version: an index, no posting file.
    await unlink(join(dir, `${segments[20]}.post`));

    const again = await openLog();
    expect(repairs).to.deep.equal([]);
    expect(await files('.post')).to.deep.equal(segments.slice(0, -1).map((n) => `${n}.post`));
    expect(await files('.tmp')).to.deep.equal([]);
    await answersLikeAScan(again, events);
    await again.close();
  });

  it('keeps answering from the open segment while it is sealed by the next day', async () => {
    const log = await openLog();
    const events = await fill(log);
    const searches = [log.search({ targetId: 'rare-target', limit: 100 }), log.search({ actorUserId: actors[1], limit: 1000 })];
    const next = await log.append({ ...event(31, 7), targetId: 'rare-target', occurredAt: at(31 * day) });
    const [rare, actor] = await Promise.all(searches);
    expect(rare.map((e) => e.id)).to.deep.equal(expectedAuditIds(events, { targetId: 'rare-target', limit: 100 }));
    expect(actor.map((e) => e.id)).to.deep.equal(expectedAuditIds(events, { actorUserId: actors[1], limit: 1000 }));
    expect((await log.search({ targetId: 'rare-target', limit: 1 }))[0]).to.deep.equal(next);
    await log.close();
  });

  it('retention deletes the posting files and indexes with their segments, and a start deletes ones a crash left behind', async () => {
    const log = await openLog();
    const events = await fill(log);
    expect(await log.prune(at(10 * day))).to.equal(240);
    const segments = await files('.jsonl');
    expect(segments).to.have.length(21);
    expect(await files('.post')).to.deep.equal(segments.slice(0, -1).map((n) => `${n}.post`));
    expect(await files('.idx')).to.deep.equal(segments.slice(0, -1).map((n) => `${n}.idx`));
    await answersLikeAScan(log, events.slice(240));
    await log.close();

    // A crash between deleting a segment and its companions.
    await unlink(join(dir, segments[0]));
    const again = await openLog();
    expect(await files('.post')).to.deep.equal(segments.slice(1, -1).map((n) => `${n}.post`));
    expect(await files('.idx')).to.deep.equal(segments.slice(1, -1).map((n) => `${n}.idx`));
    await answersLikeAScan(again, events.slice(264));
    await again.close();
  });
});
