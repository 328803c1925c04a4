import { expect } from 'chai';
import { DomainError } from '../../src/controller/core/errors.js';
import { nextRun, parseCron } from '../../src/controller/core/cron.js';
import { DestinationLocks } from '../../src/controller/services/backups/destination-locks.js';

describe('backup scheduling: cron expressions and destination locks', () => {
  it('takes five-field expressions in UTC and names body.cron for anything else', () => {
    expect(nextRun('30 2 * * *', new Date('2030-05-01T12:00:00Z'))?.toISOString()).to.equal('2030-05-02T02:30:00.000Z');
    expect(nextRun('0 * * * *', new Date('2030-05-01T12:00:00Z'))?.toISOString()).to.equal('2030-05-01T13:00:00.000Z');
    expect(nextRun('*/15 * * * 1', new Date('2030-05-01T12:00:00Z'))?.toISOString()).to.equal('2030-05-06T00:00:00.000Z');
    for (const bad of ['* * * * * *', '@daily', '* * * *', '61 * * * *', '* 25 * * *', 'a b c d e', '']) {
      let error: unknown;
      try {
        parseCron(bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('invalid_request');
      expect((error as DomainError).detail).to.match(/^body\.cron: /);
    }
  });

  it('lets backups share a destination and gives garbage collection the destination alone, before later backups', async () => {
    const locks = new DestinationLocks();
    const log: string[] = [];
    const gates: Record<string, () => void> = {};
    const work = (name: string) => () => new Promise<void>((resolve) => {
      log.push(`${name} start`);
      gates[name] = () => {
        log.push(`${name} end`);
        resolve();
      };
    });
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const a = locks.shared('d', work('a'));
    const b = locks.shared('d', work('b'));
    await tick();
    const gc = locks.exclusive('d', work('gc'));
    const c = locks.shared('d', work('c'));
    const other = locks.exclusive('elsewhere', work('other'));
    await tick();
    expect(log).to.deep.equal(['a start', 'b start', 'other start']);
    gates.a();
    gates.b();
    await tick();
    expect(log.slice(-1)).to.deep.equal(['gc start']);
    gates.gc();
    await tick();
    expect(log.slice(-1)).to.deep.equal(['c start']);
    gates.c();
    gates.other();
    await Promise.all([a, b, gc, c, other]);
  });
});
