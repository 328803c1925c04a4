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

  it('answers a page of the very same item objects with the same text, and anew when an item, the order or the cursor differs', () => {
    const a = { id: 'a' };
    const b = { id: 'b' };
    const first = pageJson({ items: [a, b], nextCursor: 'x' });
    expect(pageJson({ items: [a, b], nextCursor: 'x' })).to.equal(first);
    expect(pageJson({ items: [a, b] })).to.equal('{"items":[{"id":"a"},{"id":"b"}]}');
    expect(pageJson({ items: [a] })).to.equal('{"items":[{"id":"a"}]}');
    expect(pageJson({ items: [a, { id: 'c' }] })).to.equal('{"items":[{"id":"a"},{"id":"c"}]}');
    expect(pageJson({ items: [b, a] })).to.equal('{"items":[{"id":"b"},{"id":"a"}]}');
    expect(pageJson({ items: [a, b], nextCursor: 'x' })).to.equal('{"items":[{"id":"a"},{"id":"b"}],"nextCursor":"x"}');
  });
});
