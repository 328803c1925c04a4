import { expect } from 'chai';
import { pickToHandBack, shouldHandBack, type ShareView } from '../../src/controller/domain/lease-handover.js';
import { fairShare } from '../../src/controller/domain/lease-share.js';

const view = (total: number, held: Record<string, number>, free = total - Object.values(held).reduce((a, b) => a + b, 0)): ShareView => ({
  total, free, live: Object.keys(held), held: new Map(Object.entries(held)),
});

describe('lease handover', () => {
  it('hands one back while above the share and a joining Controller has room the free ones cannot fill', () => {
    expect(shouldHandBack('a', view(4, { a: 4, b: 0 }))).to.equal(true);
    expect(shouldHandBack('a', view(4, { a: 3, b: 0 }, 1))).to.equal(true);
    expect(shouldHandBack('a', view(4, { a: 3, b: 1 }))).to.equal(true);
    expect(shouldHandBack('a', view(6, { a: 6, b: 0, c: 0 }))).to.equal(true);
  });

  it('hands nothing back at or below the share', () => {
    expect(shouldHandBack('a', view(4, { a: 2, b: 2 }))).to.equal(false);
    expect(shouldHandBack('a', view(5, { a: 3, b: 2 }))).to.equal(false);
    expect(shouldHandBack('a', view(4, { a: 2, b: 2, c: 0 }))).to.equal(false);
    expect(shouldHandBack('a', view(6, { a: 6 }))).to.equal(false);
    expect(shouldHandBack('b', view(4, { a: 4, b: 0 }))).to.equal(false);
  });

  it('hands nothing back when the others can fill up from the free ones', () => {
    expect(shouldHandBack('a', view(4, { a: 3, b: 0 }, 1))).to.equal(true);
    expect(shouldHandBack('a', view(4, { a: 3, b: 1 }, 0))).to.equal(true);
    expect(shouldHandBack('a', view(6, { a: 3, b: 0 }, 3))).to.equal(false);
    expect(shouldHandBack('a', view(5, { a: 3, b: 1 }, 1))).to.equal(false);
  });

  it('settles every fleet into shares: handing back one per round, the others claiming free ones, ends with nobody above its share', () => {
    for (let total = 0; total <= 12; total++) {
      for (let controllers = 1; controllers <= 4; controllers++) {
        const ids = Array.from({ length: controllers }, (_, i) => `c${i}`);
        // The first Controller up took everything; the others joined with nothing.
        const held = new Map(ids.map((id, i) => [id, i === 0 ? total : 0]));
        let free = 0;
        let rounds = 0;
        const share = fairShare(total, controllers);
        for (; rounds < 3 * total + 3; rounds++) {
          let moved = false;
          for (const id of ids) {
            const mine = held.get(id)!;
            // Claims as claimShare does: free ones up to the share.
            const claimed = Math.min(free, Math.max(0, share - mine));
            free -= claimed;
            held.set(id, mine + claimed);
            if (shouldHandBack(id, { total, free, live: ids, held })) {
              held.set(id, held.get(id)! - 1);
              free += 1;
              moved = true;
            }
            if (claimed > 0) moved = true;
          }
          if (!moved) break;
        }
        const label = `${total} over ${controllers}`;
        expect(free, label).to.equal(0);
        for (const id of ids) expect(held.get(id), label).to.be.at.most(share);
        // A joining Controller gets its share within a bounded number of rounds: one per surplus resource.
        expect(rounds, label).to.be.at.most(total - share + 2);
      }
    }
  });

  it('never picks a resource with work under way, and picks the same one from round to round', () => {
    expect(pickToHandBack(['node:c', 'node:a', 'node:b'], new Set())).to.equal('node:a');
    expect(pickToHandBack(['node:b', 'node:c', 'node:a'], new Set())).to.equal('node:a');
    expect(pickToHandBack(['node:a', 'node:c', 'node:b'], new Set(['node:a']))).to.equal('node:b');
    expect(pickToHandBack(['node:a'], new Set(['node:a']))).to.equal(undefined);
    expect(pickToHandBack([], new Set())).to.equal(undefined);
  });
});
