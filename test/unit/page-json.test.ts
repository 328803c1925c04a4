import { expect } from 'chai';
import { pageJson } from '../../src/controller/http/page-json.js';

describe('page JSON joined from its items', () => {
  const items = [
    { id: 'a', name: 'é "quoted"\n', nodeId: undefined, resources: { cpuMillis: 10 }, tags: ['x'] },
    { id: 'b', name: 'b', nodeId: 'n', resources: { cpuMillis: 20 }, tags: [] },
  ];

  it('is what JSON.stringify gives, with and without a cursor, and for no items', () => {
    for (const page of [{ items }, { items, nextCursor: 'c"1' }, { items: [] }, { items: [], nextCursor: 'x' }]) {
      expect(pageJson(page)).to.equal(JSON.stringify(page));
    }
  });

  it('serializes anything but `{items, nextCursor}` in that order as it is', () => {
    const reordered = { nextCursor: 'c', items };
    const more = { items, nextCursor: 'c', total: 2 };
    expect(pageJson(reordered)).to.equal(JSON.stringify(reordered));
    expect(pageJson(more)).to.equal(JSON.stringify(more));
  });

  it('reuses an item\'s JSON while the item object is the same, and a new object is serialized anew', () => {
    const item = { id: 'a', phase: 'READY' };
    expect(pageJson({ items: [item] })).to.equal('{"items":[{"id":"a","phase":"READY"}]}');
    const rebuilt = { id: 'a', phase: 'FAILED' };
    expect(pageJson({ items: [rebuilt, item] })).to.equal('{"items":[{"id":"a","phase":"FAILED"},{"id":"a","phase":"READY"}]}');
  });
});
