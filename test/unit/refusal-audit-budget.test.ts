import { expect } from 'chai';
import { RefusalAuditBudget } from '../../src/controller/services/nodes/refusal-audit-budget.js';

describe('RefusalAuditBudget: audited Enroll refusals per peer', () => {
  it('audits the first ones of a peer in a window, counts the rest, and names that count on the next audited one', () => {
    let ms = 0;
    const budget = new RefusalAuditBudget(3, 60, () => ms);
    const takes = () => Array.from({ length: 5 }, () => budget.take('10.0.0.1'));
    expect(takes()).to.deep.equal([
      { audit: true, unaudited: 0 }, { audit: true, unaudited: 0 }, { audit: true, unaudited: 0 }, { audit: false }, { audit: false },
    ]);
    expect(budget.take('10.0.0.2')).to.deep.equal({ audit: true, unaudited: 0 });
    ms += 60_000;
    expect(budget.take('10.0.0.1')).to.deep.equal({ audit: true, unaudited: 2 });
    expect(budget.take('10.0.0.1')).to.deep.equal({ audit: true, unaudited: 0 });
  });
});
