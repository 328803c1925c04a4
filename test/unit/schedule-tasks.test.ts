import { expect } from 'chai';
import { checkTimezone, nextRun, previousRun } from '../../src/controller/core/cron.js';
import { DomainError } from '../../src/controller/core/errors.js';
import { taskPermissions, taskProblem, warningLine, warningPlan } from '../../src/controller/domain/schedule-tasks.js';

const refusal = (work: () => unknown): string => {
  try {
    work();
  } catch (e) {
    expect(e).to.be.instanceOf(DomainError);
    return (e as DomainError).detail ?? '';
  }
  throw new Error('not refused');
};

describe('schedule tasks and cron in a time zone', () => {
  it('names the field an action needs or does not take', () => {
    expect(taskProblem({ action: 'command' }, 'body.tasks[0]')).to.match(/^body\.tasks\[0\]\.command: a command task needs it/);
    expect(taskProblem({ action: 'backup' }, 'body.tasks[1]')).to.match(/^body\.tasks\[1\]\.destinationId:/);
    expect(taskProblem({ action: 'stop', warnSeconds: [5] }, 'body.tasks[2]')).to.equal('body.tasks[2].warnSeconds: only a restart task takes it, not stop.');
    expect(taskProblem({ action: 'restart', retain: 2 }, 'x')).to.equal('x.retain: only a backup task takes it, not restart.');
    expect(taskProblem({ action: 'start', command: 'say' }, 'x')).to.equal('x.command: only a command task takes it, not start.');
    expect(taskProblem({ action: 'restart', warnSeconds: [60, 10], warnCommand: 'say {seconds}', offsetSeconds: 5, continueOnFailure: true }, 'x')).to.equal(undefined);
    expect(taskProblem({ action: 'backup', destinationId: 'd', retain: 3 }, 'x')).to.equal(undefined);
  });

  it('asks for each action\'s permissions; a restart both stops and starts', () => {
    expect(taskPermissions('command')).to.deep.equal(['servers.command']);
    expect(taskPermissions('restart')).to.deep.equal(['servers.stop', 'servers.start']);
    expect(taskPermissions('backup')).to.deep.equal(['backups.create']);
  });

  it('plans warnings [60, 30, 10] at 0, 30 and 50 s and the restart at 60 s, in any order given', () => {
    expect(warningPlan([10, 60, 30])).to.deep.equal({ warnings: [{ seconds: 60, atMs: 0 }, { seconds: 30, atMs: 30_000 }, { seconds: 10, atMs: 50_000 }], restartAtMs: 60_000 });
    expect(warningPlan([])).to.deep.equal({ warnings: [], restartAtMs: 0 });
    expect(warningLine('say Restarting in {seconds} seconds ({seconds})', 30)).to.equal('say Restarting in 30 seconds (30)');
  });

  it('reads cron in a time zone, across a change of daylight saving time', () => {
    // 2030-03-31: Berlin moves from UTC+1 to UTC+2 at 01:00 UTC.
    expect(nextRun('0 4 * * *', new Date('2030-03-30T12:00:00Z'), 'Europe/Berlin')?.toISOString()).to.equal('2030-03-31T02:00:00.000Z');
    expect(nextRun('0 4 * * *', new Date('2030-03-29T12:00:00Z'), 'Europe/Berlin')?.toISOString()).to.equal('2030-03-30T03:00:00.000Z');
    expect(previousRun('* * * * *', new Date('2030-01-01T12:00:00.000Z'))?.toISOString()).to.equal('2030-01-01T12:00:00.000Z');
    expect(previousRun('* * * * *', new Date('2030-01-01T12:00:59.999Z'))?.toISOString()).to.equal('2030-01-01T12:00:00.000Z');
  });

  it('takes IANA names in their canonical spelling and names body.timezone for anything else', () => {
    expect(checkTimezone('utc')).to.equal('UTC');
    expect(checkTimezone('europe/berlin')).to.equal('Europe/Berlin');
    for (const bad of ['Mars/Olympus', '+01:00', '', 'UTC; drop']) expect(refusal(() => checkTimezone(bad)), bad).to.match(/^body\.timezone: /);
  });
});
