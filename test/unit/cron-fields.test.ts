import { expect } from 'chai';
import { cronProblem } from '../../src/controller/domain/cron-fields.js';

describe('cronProblem: a schedule\'s cron checked in Cairn\'s words', () => {
  it('takes numbers, names, ranges, lists and steps within each field\'s bounds', () => {
    for (const good of ['0 4 * * *', '*/15 * * * *', '0 0-23/2 1,15 * mon-fri', '59 23 31 12 7', '0 0 1 JAN SUN', ' 5  4 * * * ', '1-5/2 * * * 0']) {
      expect(cronProblem(good), good).to.equal(undefined);
    }
  });

  it('says how many fields there must be, with an example', () => {
    expect(cronProblem('* * * * * *')).to.equal(
      "cron must have 5 fields: minute hour day-of-month month day-of-week, e.g. '0 4 * * *' (every day at 04:00 UTC); this has 6.",
    );
    expect(cronProblem('@daily')).to.match(/^cron must have 5 fields: .*this has 1\.$/);
    expect(cronProblem('')).to.match(/this has 0\.$/);
  });

  it('names the field that is wrong and what it takes', () => {
    expect(cronProblem('61 * * * *')).to.equal(
      "cron field 1 (minute) '61' is not valid: use *, a number 0-59, a range a-b, a list a,b or a step */n, e.g. '0 4 * * *' (every day at 04:00 UTC).",
    );
    expect(cronProblem('0 25 * * *')).to.match(/^cron field 2 \(hour\) '25' is not valid: use \*, a number 0-23,/);
    expect(cronProblem('0 0 0 * *')).to.match(/^cron field 3 \(day-of-month\) '0'/);
    expect(cronProblem('0 0 * 13 *')).to.match(/^cron field 4 \(month\) '13' is not valid: use \*, a number 1-12 or jan-dec,/);
    expect(cronProblem('0 0 * * funday')).to.match(/^cron field 5 \(day-of-week\) 'funday' is not valid: use \*, a number 0-7 or sun-sat,/);
  });

  it('refuses backwards ranges, zero or missing steps, empty list items and extensions', () => {
    for (const [bad, field] of [['5-1 * * * *', 1], ['*/0 * * * *', 1], ['*/ * * * *', 1], ['1,,2 * * * *', 1], ['0 0 L * *', 3], ['0 0 * * 5#2', 5], ['0 0 ? * *', 3], ['1/2/3 * * * *', 1], ['5/10 * * * *', 1], ['-1 * * * *', 1]] as const) {
      expect(cronProblem(bad), bad).to.match(new RegExp(`^cron field ${field} `));
    }
  });
});
