import { expect } from 'chai';
import { formatSeconds } from '../../src/web/src/pages/servers/tabs/seconds-words.js';

describe('web: seconds in words (the sleep form)', () => {
  it('says whole hours, minutes and seconds, leaving out what is zero', () => {
    expect(formatSeconds(10)).to.equal('10 seconds');
    expect(formatSeconds(60)).to.equal('1 minute');
    expect(formatSeconds(90)).to.equal('1 minute 30 seconds');
    expect(formatSeconds(600)).to.equal('10 minutes');
    expect(formatSeconds(3661)).to.equal('1 hour 1 minute 1 second');
    expect(formatSeconds(86400)).to.equal('24 hours');
  });
});
