import { expect } from 'chai';
import { formatInZone, formatScheduleTime, previewCron, timezoneChoices } from '../../src/web/src/pages/servers/schedules/cron-preview.js';
import { describeTask } from '../../src/web/src/pages/servers/schedules/schedule-words.js';
import { moveTask, newTask, taskBodies, taskControlFields } from '../../src/web/src/pages/servers/schedules/task-drafts.js';

describe('web UI: the Schedules tab\'s helpers', () => {
  it('explains a five-field expression in words with its next runs in the chosen timezone', () => {
    const after = new Date('2026-07-01T12:00:00Z');
    const berlin = previewCron('0 4 * * *', 'Europe/Berlin', 5, after);
    expect(berlin?.words).to.equal('At 04:00');
    // Summer time: 04:00 in Berlin is 02:00 UTC.
    expect(berlin?.next.map((d) => d.toISOString())).to.deep.equal(['02', '03', '04', '05', '06'].map((day) => `2026-07-${day}T02:00:00.000Z`));
    expect(formatInZone(berlin!.next[0], 'Europe/Berlin')).to.match(/04:00/);
    const weekdays = previewCron(' */15  9-17 * *   1-5 ', 'UTC', 2, after);
    expect(weekdays?.words).to.equal('Every 15 minutes, between 09:00 and 17:59, Monday through Friday');
    expect(weekdays?.next.map((d) => d.toISOString())).to.deep.equal(['2026-07-01T12:15:00.000Z', '2026-07-01T12:30:00.000Z']);
  });

  it('explains nothing the API would refuse: not five fields, a field out of range, a nickname, an unknown timezone', () => {
    for (const expression of ['', '0 4 * *', '0 0 4 * * *', '61 4 * * *', '@daily', 'hello there you five words']) {
      expect(previewCron(expression, 'UTC'), expression).to.equal(undefined);
    }
    expect(previewCron('0 4 * * *', 'Mars/Olympus')).to.equal(undefined);
  });

  it('shows a schedule\'s times as its own zone\'s clocks read them', () => {
    expect(formatScheduleTime('2026-07-02T02:00:00Z', 'Europe/Berlin')).to.match(/04:00$/);
    expect(formatScheduleTime('2026-07-02T02:00:05Z', 'Europe/Berlin', { seconds: true })).to.match(/04:00:05$/);
    expect(formatScheduleTime('2026-07-02T02:00:00Z', 'UTC')).to.match(/02:00$/);
    expect(formatScheduleTime(undefined, 'UTC')).to.equal('—');
  });

  it('offers UTC first, then every zone the runtime knows, once each', () => {
    const zones = timezoneChoices();
    expect(zones[0]).to.equal('UTC');
    expect(zones).to.include('Europe/Berlin');
    expect(new Set(zones).size).to.equal(zones.length);
  });

  it('sends only the fields of each task\'s action, parsed; text that cannot be sent is a problem naming its field', () => {
    const restart = { ...newTask(1, 'restart'), warnSeconds: '60, 30,10', warnCommand: ' say bye in {seconds} ', command: 'left over from another action' };
    const command = { ...newTask(2, 'command'), command: ' say hi ', offsetSeconds: '0', continueOnFailure: true };
    const backup = { ...newTask(3, 'backup'), destinationId: 'd-1', retain: '7', offsetSeconds: '30' };
    expect(taskBodies([restart, command, backup, newTask(4, 'stop')])).to.deep.equal({
      tasks: [
        { action: 'restart', warnSeconds: [60, 30, 10], warnCommand: 'say bye in {seconds}' },
        { action: 'command', command: 'say hi', offsetSeconds: 0, continueOnFailure: true },
        { action: 'backup', destinationId: 'd-1', retain: 7, offsetSeconds: 30 },
        { action: 'stop' },
      ],
      problems: {},
    });
    const bad = taskBodies([{ ...restart, warnSeconds: '60,soon' }, { ...backup, retain: 'all', offsetSeconds: '-5' }]);
    expect(Object.keys(bad.problems)).to.deep.equal(['tasks[0].warnSeconds', 'tasks[1].retain', 'tasks[1].offsetSeconds']);
  });

  it('names the request fields each task\'s controls show, which the API\'s problems use', () => {
    const drafts = [newTask(1, 'command'), newTask(2, 'backup')];
    expect(taskControlFields(drafts, true)).to.deep.equal([
      'tasks[0].command', 'tasks[0].action', 'tasks[0].offsetSeconds', 'tasks[0].continueOnFailure',
      'tasks[1].destinationId', 'tasks[1].retain', 'tasks[1].action', 'tasks[1].offsetSeconds', 'tasks[1].continueOnFailure',
    ]);
    expect(taskControlFields(drafts, false)).to.not.include('tasks[1].destinationId');
  });

  it('moves a task up or down, never past either end', () => {
    expect(moveTask(['a', 'b', 'c'], 2, -1)).to.deep.equal(['a', 'c', 'b']);
    expect(moveTask(['a', 'b', 'c'], 0, 1)).to.deep.equal(['b', 'a', 'c']);
    expect(moveTask(['a', 'b'], 0, -1)).to.deep.equal(['a', 'b']);
    expect(moveTask(['a', 'b'], 1, 1)).to.deep.equal(['a', 'b']);
  });

  it('says a task in one line', () => {
    expect(describeTask({ action: 'restart', warnSeconds: [60, 10], offsetSeconds: 30 })).to.equal('restart, warning 60, 10 s before, at +30 s');
    expect(describeTask({ action: 'command', command: 'save-all', continueOnFailure: true })).to.equal('command, `save-all`, goes on if it fails');
    expect(describeTask({ action: 'backup', destinationId: '00000000-0000-4000-8000-000000000000', retain: 3 })).to.equal('backup, keeping 3');
  });
});
