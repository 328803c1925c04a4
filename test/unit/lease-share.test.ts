import { expect } from 'chai';
import { fairShare, nodeOfResource, nodeResource, nodesToClaim } from '../../src/controller/domain/lease-share.js';

describe('lease share', () => {
  it('is an equal share rounded up, so the shares cover every Node', () => {
    expect(fairShare(10, 3)).to.equal(4);
    expect(fairShare(9, 3)).to.equal(3);
    expect(fairShare(2, 3)).to.equal(1);
    expect(fairShare(0, 3)).to.equal(0);
    expect(fairShare(5, 0)).to.equal(5);
    for (let nodes = 0; nodes < 40; nodes++) for (let c = 1; c < 6; c++) expect(fairShare(nodes, c) * c).to.be.at.least(nodes);
  });

  it('claims nothing at or above the share', () => {
    expect(nodesToClaim(['a', 'b'], 3, 3, 'c1')).to.deep.equal([]);
    expect(nodesToClaim(['a', 'b'], 4, 3, 'c1')).to.deep.equal([]);
    expect(nodesToClaim([], 0, 3, 'c1')).to.deep.equal([]);
  });

  it('claims up to the room left, each Controller from its own place in the list', () => {
    const free = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
    const a = nodesToClaim(free, 1, 3, 'controller-a');
    expect(a).to.have.length(2);
    expect(free).to.include.members(a);
    // The same inputs always give the same answer: a Controller does not wander between ticks.
    expect(nodesToClaim([...free].reverse(), 1, 3, 'controller-a')).to.deep.equal(a);
    const starts = new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((seed) => nodesToClaim(free, 0, 1, seed)[0]));
    expect(starts.size).to.be.greaterThan(1);
  });

  it('names Node leases and reads them back', () => {
    expect(nodeOfResource(nodeResource('abc'))).to.equal('abc');
    expect(nodeOfResource('controller:abc')).to.equal(undefined);
  });
});
