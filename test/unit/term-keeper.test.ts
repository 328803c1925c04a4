import { expect } from 'chai';
import { capturingLogger } from '../support/capturing-logger.js';
import { TermKeeper } from '../../src/agent/link/term-keeper.js';

describe('the Agent\'s lease term keeper', () => {
  it('obeys the highest term seen and refuses older ones, saying so in its log', () => {
    const { lines, logger } = capturingLogger();
    const terms = new TermKeeper(logger);
    expect(terms.accept(3, 'a desired state')).to.equal(true);
    expect(terms.accept(3, 'a desired-state change')).to.equal(true);
    expect(terms.accept(5, 'a desired state')).to.equal(true);
    expect(terms.term).to.equal(5);
    expect(terms.accept(4, 'a fileList request')).to.equal(false);
    expect(terms.term).to.equal(5);
    const refusal = lines.find((l) => l.event === 'stale_term_refused');
    expect(refusal).to.deep.include({ term: 4, highestTerm: 5, what: 'a fileList request' });
    expect(String(refusal?.msg)).to.match(/refused a fileList request of lease term 4/);
    expect(lines.filter((l) => l.event === 'lease_term_raised').map((l) => [l.previousTerm, l.term]), 'each new term said once').to.deep.equal([[0, 3], [3, 5]]);
  });

  it('always obeys term 0, a Controller without leases (the embedded store\'s)', () => {
    const { logger } = capturingLogger();
    const terms = new TermKeeper(logger);
    expect(terms.accept(0, 'a desired state')).to.equal(true);
    expect(terms.accept(2, 'a desired state')).to.equal(true);
    expect(terms.accept(0, 'a desired state')).to.equal(true);
    expect(terms.term).to.equal(2);
  });
});
