import { expect } from 'chai';
import { cutUtf8, LineSplitter } from '../../src/agent/runtime/line-splitter.js';

function split(chunks: (string | Buffer)[], maxBytes = 16) {
  const lines: [string, boolean][] = [];
  const splitter = new LineSplitter(maxBytes, (text, truncated) => lines.push([text, truncated]));
  for (const chunk of chunks) splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  splitter.flush();
  return lines;
}

describe('runtime: line splitter', () => {
  it('splits on \\n and \\r\\n across chunk boundaries', () => {
    expect(split(['one\r', '\ntw', 'o\nthree\r\n'])).to.deep.equal([
      ['one', false],
      ['two', false],
      ['three', false],
    ]);
  });

  it('keeps empty lines and flushes a last line without newline', () => {
    expect(split(['a\n\nb'])).to.deep.equal([
      ['a', false],
      ['', false],
      ['b', false],
    ]);
  });

  it('cuts a line over the limit and drops the rest until the newline', () => {
    expect(split(['0123456789', 'abcdefghij', 'klm\nnext\n'])).to.deep.equal([
      ['0123456789abcdef', true],
      ['next', false],
    ]);
  });

  it('does not flag a full-length line followed by \\r\\n as cut', () => {
    expect(split(['0123456789abcdef\r\n'])).to.deep.equal([['0123456789abcdef', false]]);
  });

  it('cuts on a UTF-8 character boundary', () => {
    // 'é' is two bytes: 9 of them are 18 bytes, cut to 16 = 8 characters; '€' is three: 5 fit in 16.
    expect(split(['é'.repeat(9) + '\n'])).to.deep.equal([['é'.repeat(8), true]]);
    expect(split(['€'.repeat(6) + '\n'])).to.deep.equal([['€'.repeat(5), true]]);
  });

  it('reassembles a character split across chunks', () => {
    const bytes = Buffer.from('€\n');
    expect(split([bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)])).to.deep.equal([['€', false]]);
  });

  it('cutUtf8 leaves short input alone and never ends inside a character', () => {
    expect(cutUtf8(Buffer.from('abc'), 5).toString()).to.equal('abc');
    expect(cutUtf8(Buffer.from('a€'), 3).toString()).to.equal('a');
    expect(cutUtf8(Buffer.from('a€'), 4).toString()).to.equal('a€');
  });
});
