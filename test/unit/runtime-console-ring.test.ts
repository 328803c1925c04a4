import { expect } from 'chai';
import { ConsoleRing } from '../../src/agent/runtime/console-ring.js';

const line = (seq: number) => ({ seq, stream: 'stdout' as const, text: `line ${seq}`, truncated: false });

describe('runtime: console ring buffer', () => {
  it('returns the last n lines oldest first', () => {
    const ring = new ConsoleRing(5);
    for (let seq = 0; seq < 3; seq += 1) ring.push(line(seq));
    expect(ring.tail(10).map((l) => l.seq)).to.deep.equal([0, 1, 2]);
    expect(ring.tail(2).map((l) => l.seq)).to.deep.equal([1, 2]);
    expect(ring.tail(0)).to.deep.equal([]);
  });

  it('keeps only the newest lines once full, in order across the wrap', () => {
    const ring = new ConsoleRing(4);
    for (let seq = 0; seq < 11; seq += 1) ring.push(line(seq));
    expect(ring.size).to.equal(4);
    expect(ring.tail(100).map((l) => l.seq)).to.deep.equal([7, 8, 9, 10]);
    expect(ring.tail(3).map((l) => l.seq)).to.deep.equal([8, 9, 10]);
  });
});
