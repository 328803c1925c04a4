import { expect } from 'chai';
import type { Schedule } from '../../src/web/src/api/types.js';
import { draftOfSchedule, emptySchedule, scheduleBody, scheduleControlFields } from '../../src/web/src/pages/servers/schedules/schedule-drafts.js';

const stored: Schedule = {
  id: '01a22a51-6346-724a-a16f-e161fc019b45', serverId: '01a22a51-6346-724a-a16f-e161fc019b46', name: 'nightly', cron: '0 4 * * *', timezone: 'Europe/Berlin',
  enabled: false, onlyWhenRunning: true, createdAt: '2026-11-30T03:00:00.000Z', updatedAt: '2026-11-30T03:00:00.000Z', updatedBy: '01a22a51-6346-724a-a16f-e161fc019b47',
  tasks: [
    { action: 'command', command: 'save-all', offsetSeconds: 0 },
    { action: 'restart', warnSeconds: [60, 30, 10], warnCommand: 'say {seconds}s left', continueOnFailure: true },
    { action: 'backup', destinationId: '01a22a51-6346-724a-a16f-e161fc019b48', retain: 7, offsetSeconds: 120 },
  ],
};

describe('web UI: the Edit schedule form\'s drafts', () => {
  it('a stored schedule opened and saved unchanged sends the same fields and tasks back', () => {
    const { body, problems } = scheduleBody(draftOfSchedule(stored), '');
    expect(problems).to.deep.equal({});
    const { id: _id, serverId: _serverId, createdAt: _createdAt, updatedAt: _updatedAt, updatedBy: _updatedBy, ...fields } = stored;
    expect(body).to.deep.equal(fields);
  });

  it('tasks keep distinct keys in their order, so the task list can add after them', () => {
    expect(draftOfSchedule(stored).tasks.map((t) => [t.key, t.action])).to.deep.equal([[0, 'command'], [1, 'restart'], [2, 'backup']]);
  });

  it('a new schedule is enabled in UTC with one restart task; a backup without a destination gets the default', () => {
    const draft = { ...emptySchedule(), name: ' nightly ', cron: ' 0  4 * * * ' };
    expect(scheduleBody(draft, '').body).to.deep.equal({ name: 'nightly', cron: '0 4 * * *', timezone: 'UTC', enabled: true, onlyWhenRunning: false, tasks: [{ action: 'restart' }] });
    const backup = { ...draft, tasks: [{ ...draft.tasks[0], action: 'backup' as const }] };
    expect(scheduleBody(backup, 'dest-1').body.tasks).to.deep.equal([{ action: 'backup', destinationId: 'dest-1' }]);
    expect(scheduleControlFields(backup, false)).to.include.members(['name', 'cron', 'timezone', 'enabled', 'onlyWhenRunning', 'tasks[0].retain']).and.not.include('tasks[0].destinationId');
  });
});
