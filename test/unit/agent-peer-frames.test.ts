import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { BrokeOff } from '../../src/shared/peer/arrival.js';
import { FrameReader } from '../../src/shared/peer/frame-reader.js';
import { frameKinds } from '../../src/shared/peer/frames.js';
import { maxChunkBytes } from '../../src/shared/link/messages.js';

const frameBytes = (kind: number, payload: Buffer) => {
  const head = Buffer.alloc(5);
  head.writeUInt8(kind, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
};

/** Feeds bytes to the reader as `onread` would: copied into its buffer, `size` at a time; answers the callback's last answer. */
function feed(reader: FrameReader, bytes: Buffer, size: number): boolean {
  let more = true;
  for (let at = 0; at < bytes.length; at += size) {
    const n = bytes.copy(reader.onread.buffer, 0, at, Math.min(bytes.length, at + size));
    more = reader.onread.callback(n, reader.onread.buffer);
  }
  return more;
}

describe('Agent to Agent pulls: frames read into the puller\'s own buffers', () => {
  it('parses frames however the bytes are split, and pauses while two whole frames wait', async () => {
    const data = Buffer.from('region bytes');
    const sha = Buffer.alloc(32, 0xab);
    for (const size of [1, 3, 7, 64 * 1024]) {
      const reader = new FrameReader();
      reader.attach(new PassThrough());
      expect(feed(reader, frameBytes(frameKinds.data, data), size)).to.equal(true);
      expect(feed(reader, Buffer.concat([frameBytes(frameKinds.data, Buffer.alloc(0)), frameBytes(frameKinds.end, sha)]), size)).to.equal(false);
      const first = await reader.next('a frame');
      expect(first.kind === 'data' && first.data.toString()).to.equal('region bytes');
      expect(await reader.next('a frame')).to.deep.include({ kind: 'data' });
      expect(await reader.next('a frame')).to.deep.equal({ kind: 'end', sha256: sha.toString('hex') });
    }
  });

  it('fills a data frame\'s buffer again once it is given back, not before', async () => {
    const reader = new FrameReader();
    reader.attach(new PassThrough());
    feed(reader, Buffer.concat([frameBytes(frameKinds.data, Buffer.from('one')), frameBytes(frameKinds.data, Buffer.from('two'))]), 1024);
    const one = await reader.next('a frame');
    const two = await reader.next('a frame');
    if (one.kind !== 'data' || two.kind !== 'data') throw new Error('data frames expected');
    expect(two.data.buffer).to.not.equal(one.data.buffer);
    expect(one.data.toString()).to.equal('one');
    reader.reuse(one);
    feed(reader, frameBytes(frameKinds.data, Buffer.from('three')), 1024);
    const three = await reader.next('a frame');
    expect(three.kind === 'data' && three.data.buffer).to.equal(one.data.buffer);
  });

  it('refuses a data frame above 1 MiB or an unknown kind: the connection ends, the reader says so', async () => {
    const tooLong = Buffer.alloc(5);
    tooLong.writeUInt8(frameKinds.data, 0);
    tooLong.writeUInt32BE(maxChunkBytes + 1, 1);
    for (const bytes of [tooLong, frameBytes(9, Buffer.from('x'))]) {
      const socket = new PassThrough();
      const reader = new FrameReader();
      reader.attach(socket);
      expect(feed(reader, bytes, 1024)).to.equal(false);
      expect(socket.destroyed).to.equal(true);
      expect(await reader.next('a frame').then(() => undefined, (e: unknown) => e)).to.be.instanceOf(BrokeOff);
    }
  });

  it('ends with BrokeOff when the connection ends mid-frame, after the whole frames before it', async () => {
    const socket = new PassThrough();
    const reader = new FrameReader();
    reader.attach(socket);
    feed(reader, Buffer.concat([frameBytes(frameKinds.failed, Buffer.from('gone')), frameBytes(frameKinds.data, Buffer.from('half')).subarray(0, 7)]), 1024);
    socket.destroy();
    expect(await reader.next('a frame')).to.deep.equal({ kind: 'failed', message: 'gone' });
    const failure = await reader.next('a frame').then(() => undefined, (e: unknown) => e);
    expect(failure).to.be.instanceOf(BrokeOff).with.property('message', 'the connection ended before a frame');
  });
});
