import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { fromJsonLine, toJsonLine } from '../../src/controller/link/link-json.js';

describe('link messages as JSON lines', () => {
  it('carries bytes (a file chunk, a slice of a larger buffer) and everything else unchanged, one line each', () => {
    const whole = randomBytes(4096);
    const data = whole.subarray(100, 1124);
    const message = { requestId: 'r1', ok: true, more: true, payload: 'fileChunk', fileChunk: { data, offset: 7, totalBytes: 9, eof: false, names: ['a', { $bytes: 1 }] } };
    const line = toJsonLine(message);
    expect(line.endsWith('\n')).to.equal(true);
    expect(line.slice(0, -1)).to.not.include('\n');
    const back = fromJsonLine<typeof message>(line);
    expect(Buffer.isBuffer(back.fileChunk.data)).to.equal(true);
    expect(Buffer.compare(back.fileChunk.data, data)).to.equal(0);
    expect({ ...back, fileChunk: { ...back.fileChunk, data: null } }).to.deep.equal({ ...message, fileChunk: { ...message.fileChunk, data: null } });
  });

  it('carries an empty buffer as an empty buffer', () => {
    const back = fromJsonLine<{ data: Buffer }>(toJsonLine({ data: Buffer.alloc(0) }));
    expect(Buffer.isBuffer(back.data) && back.data.length === 0).to.equal(true);
  });
});
