import { expect } from 'chai';
import { SchedulesRig } from '../support/schedules-rig.js';
import type { ScheduleRun } from '../support/api-types.js';
import { waitFor } from '../support/wait-for.js';

/** The hour and minute of `at` on a wall clock in `timeZone`. */
const wallClock = (at: Date, timeZone: string) => {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { hour: part('hour'), minute: part('minute') };
};

describe('schedules on a test clock: the minute, once, in its time zone, MISSED and interrupted across restarts', function () {
  this.timeout(60_000);
  const rig = SchedulesRig.register();
  const remove = async (id: string) => expect((await rig.admin.delete(`/schedules/${id}`)).status).to.equal(204);

  it('runs at its minute, within 2 s, and once for that minute even when the Controller restarts within it', async () => {
    const schedule = await rig.create({ name: 'every minute', cron: '* * * * *', tasks: [{ action: 'command', command: 'say tick' }] });
    const minute = rig.toNextMinute();
    const run = await rig.runOf(schedule.id);
    expect(run).to.deep.include({ scheduledFor: minute.toISOString(), result: 'SUCCEEDED', tasks: [{ action: 'command', result: 'SUCCEEDED' }] });
    expect(Date.parse(run.startedAt!) - minute.getTime()).to.be.within(0, 2000);
    await rig.restart();
    expect((await rig.runsOf(schedule.id)).map((r) => `${r.scheduledFor} ${r.result}`)).to.deep.equal([`${minute.toISOString()} SUCCEEDED`]);
    expect(rig.commands.filter((c) => c.endsWith('say tick'))).to.have.length(1);
    await remove(schedule.id);
  });

  it('reads the cron in the schedule\'s time zone', async () => {
    const now = rig.t.clock.now();
    const next = new Date(Math.ceil((now.getTime() + 1) / 60_000) * 60_000);
    const kolkata = wallClock(next, 'Asia/Kolkata');
    const cron = `${kolkata.minute} ${kolkata.hour} * * *`;
    const local = await rig.create({ name: 'kolkata', cron, timezone: 'Asia/Kolkata' });
    const utc = await rig.create({ name: 'utc', cron });
    expect(local.nextRunAt).to.equal(next.toISOString());
    // The same wall-clock time in UTC is 5 h 30 min away from it.
    expect(Math.abs(Date.parse(utc.nextRunAt!) - next.getTime()) % (24 * 3600_000)).to.be.oneOf([5.5 * 3600_000, 18.5 * 3600_000]);
    rig.toNextMinute(500);
    expect(await rig.runOf(local.id)).to.deep.include({ scheduledFor: next.toISOString(), result: 'SUCCEEDED' });
    expect(await rig.runsOf(utc.id)).to.deep.equal([]);
    await remove(local.id);
    await remove(utc.id);
  });

  it('records one MISSED run for the last minute that passed while no Controller was up, and never runs it late', async () => {
    const schedule = await rig.create({ name: 'missed', cron: '* * * * *', tasks: [{ action: 'command', command: 'say missed' }] });
    await rig.t.stop();
    const last = rig.toNextMinute(2 * 60_000 + 5000);
    const lastMinute = new Date(last.getTime() + 2 * 60_000);
    await rig.restart();
    // Recorded by the schedules' start: on a shared store that is just after the Controller listens.
    const runs = await waitFor(async () => {
      const found = await rig.runsOf(schedule.id);
      return found.length > 0 ? found : undefined;
    }, { what: 'the MISSED run' });
    expect(runs.map((r) => `${r.scheduledFor} ${r.result}`)).to.deep.equal([`${lastMinute.toISOString()} MISSED`]);
    expect(runs[0].tasks).to.deep.equal([{ action: 'command', result: 'NOT_RUN' }]);
    expect(rig.commands.filter((c) => c.endsWith('say missed'))).to.deep.equal([]);
    const metrics = await rig.t.api.get('/metrics');
    expect(metrics.text).to.match(/cairn_schedule_runs_total\{result="MISSED"\} [1-9]/);
    await remove(schedule.id);
  });

  it('ends a run cut off by a restart FAILED interrupted, and never runs its remaining tasks', async () => {
    const schedule = await rig.create({ name: 'cut off', cron: '* * * * *', tasks: [{ action: 'command', command: 'say first' }, { action: 'command', command: 'say second', offsetSeconds: 30 }] });
    const minute = rig.toNextMinute();
    let seen: ScheduleRun[] = [];
    await waitFor(async () => {
      seen = await rig.runsOf(schedule.id);
      return seen.at(0)?.tasks.length === 1;
    }, { what: 'the first task to end', explain: () => `runs ${JSON.stringify(seen)}` });
    await rig.restart();
    const run = await rig.runOf(schedule.id, (r) => r.scheduledFor === minute.toISOString() && r.result !== 'RUNNING', 'the run cut off to end');
    expect(run).to.deep.include({
      scheduledFor: minute.toISOString(), result: 'FAILED', reason: 'interrupted',
      tasks: [{ action: 'command', result: 'SUCCEEDED' }, { action: 'command', result: 'NOT_RUN' }],
    });
    rig.t.clock.advance(40_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(rig.commands.filter((c) => c.endsWith('say second'))).to.deep.equal([]);
    expect((await rig.runsOf(schedule.id)).filter((r) => r.scheduledFor === minute.toISOString())).to.have.length(1);
    await remove(schedule.id);
  });
});
