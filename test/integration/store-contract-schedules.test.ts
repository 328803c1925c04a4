import { expect } from 'chai';
import { uuidV7Ids } from '../../src/shared/clock.js';
import { DuplicateKeyError } from '../../src/controller/store/collection.js';
import type { ScheduleDoc } from '../../src/controller/store/records.js';
import { openRepositories, type Repositories } from '../../src/controller/store/repositories.js';
import { minuteKey, RunRecords } from '../../src/controller/services/schedules/run-records.js';
import { describeStoreContract } from '../support/store-contract.js';

describeStoreContract('schedule runs', (contract) => {
  let repos: Repositories;
  let records: RunRecords;
  const at = '2030-01-01T00:00:00.000Z';
  const schedule = (id: string): ScheduleDoc => ({
    _id: id, serverId: 's1', teamId: 't1', name: 'n', cron: '* * * * *', timezone: 'UTC', enabled: true, onlyWhenRunning: false,
    tasks: [{ action: 'start' }, { action: 'stop' }], dueSince: at, createdAt: at, updatedAt: at, updatedBy: 'u1',
  });

  before(async () => {
    repos = await openRepositories(contract.adapter);
    records = new RunRecords({ repos, clock: contract.clock, ids: uuidV7Ids });
  });

  it('claims a minute once: the second claim of the same key is refused and runs nothing', async () => {
    const s = schedule(uuidV7Ids.next());
    await repos.schedules.insert(s);
    const minute = new Date('2030-01-01T04:00:00.000Z');
    const first = await records.claim(s, minuteKey(s._id, minute), minute, 'RUNNING');
    expect(first).to.include({ scheduleId: s._id, result: 'RUNNING', scheduledFor: minute.toISOString(), claimKey: `${s._id}@2030-01-01T04:00:00.000Z` });
    expect(await records.claim(s, minuteKey(s._id, minute), minute, 'RUNNING')).to.equal(undefined);
    expect(await records.claim(s, minuteKey(s._id, minute), minute, 'MISSED')).to.equal(undefined);
    const dup = await repos.scheduleRuns.insert({ ...first!, _id: uuidV7Ids.next() }).then(() => undefined, (e: unknown) => e);
    expect(dup).to.be.instanceOf(DuplicateKeyError);
    expect(await repos.scheduleRuns.count({ scheduleId: s._id })).to.equal(1);
    const next = new Date('2030-01-01T04:01:00.000Z');
    expect(await records.claim(s, minuteKey(s._id, next), next, 'RUNNING')).to.include({ result: 'RUNNING' });
  });

  it('ends runs left RUNNING as FAILED interrupted, their unfinished tasks NOT_RUN, and keeps the last 100 finished runs', async () => {
    const s = schedule(uuidV7Ids.next());
    await repos.schedules.insert(s);
    const minute = new Date('2030-01-02T04:00:00.000Z');
    const run = await records.claim(s, minuteKey(s._id, minute), minute, 'RUNNING');
    await records.progress({ ...run!, tasks: [{ action: 'start', result: 'SUCCEEDED' }] });
    await records.interrupted();
    const ended = await repos.scheduleRuns.findById(run!._id);
    expect(ended).to.deep.include({ result: 'FAILED', reason: 'interrupted', tasks: [{ action: 'start', result: 'SUCCEEDED' }, { action: 'stop', result: 'NOT_RUN' }] });
    for (let i = 1; i <= 101; i++) await records.claim(s, minuteKey(s._id, new Date(minute.getTime() + i * 60_000)), new Date(minute.getTime() + i * 60_000), 'MISSED');
    const kept = await repos.scheduleRuns.find({ scheduleId: s._id }, { sort: { _id: -1 } });
    expect(kept).to.have.length(100);
    expect(kept.every((r) => r.result === 'MISSED')).to.equal(true);
  });

  it('leaves alone the runs of a Controller still alive, and ends those of one gone', async () => {
    const s = schedule(uuidV7Ids.next());
    await repos.schedules.insert(s);
    const onA = new RunRecords({ repos, clock: contract.clock, ids: uuidV7Ids }, 'controller-a');
    const onB = new RunRecords({ repos, clock: contract.clock, ids: uuidV7Ids }, 'controller-b');
    const minute = new Date('2030-01-03T04:00:00.000Z');
    const ofA = await onA.claim(s, minuteKey(s._id, minute), minute, 'RUNNING');
    const ofB = await onB.claim(s, `${s._id}@now@${uuidV7Ids.next()}`, minute, 'RUNNING');
    expect(ofA).to.include({ runBy: 'controller-a' });
    await onB.interrupted(new Set(['controller-a', 'controller-b']));
    expect((await repos.scheduleRuns.findById(ofA!._id))?.result).to.equal('RUNNING');
    expect((await repos.scheduleRuns.findById(ofB!._id))?.result).to.equal('RUNNING');
    // A is gone (its lease expired): its run is swept, B's own stays under way.
    await onB.interrupted(new Set(['controller-b']));
    expect(await repos.scheduleRuns.findById(ofA!._id)).to.deep.include({ result: 'FAILED', reason: 'interrupted' });
    expect((await repos.scheduleRuns.findById(ofB!._id))?.result).to.equal('RUNNING');
  });
});
