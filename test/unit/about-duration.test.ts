import { expect } from 'chai';
import { aboutDuration } from '../../src/shared/about-duration.js';

describe('aboutDuration: a wait as a person says it', () => {
  it('rounds to whole seconds, minutes, hours and days', () => {
    expect(aboutDuration(894.282)).to.equal('about 15 minutes');
    expect(aboutDuration(30)).to.equal('about 30 seconds');
    expect(aboutDuration(7200)).to.equal('about 2 hours');
    expect(aboutDuration(3 * 86_400)).to.equal('about 3 days');
  });

  it('moves to the next unit when rounding reaches it', () => {
    expect(aboutDuration(59.6)).to.equal('about 1 minute');
    expect(aboutDuration(3599)).to.equal('about 1 hour');
  });

  it('says one in the singular and never less than one second', () => {
    expect(aboutDuration(1)).to.equal('about 1 second');
    expect(aboutDuration(0.2)).to.equal('about 1 second');
    expect(aboutDuration(0)).to.equal('about 1 second');
    expect(aboutDuration(61)).to.equal('about 1 minute');
  });
});
