import { expect } from 'chai';
import type { PassThrough } from 'node:stream';
import { WriteHandle } from '../../src/controller/http/sftp/sftp-handles.js';

/** Settles to 'answered' or the error's message, or 'waiting' when still pending after a turn of the event loop. */
const stateOf = async (p: Promise<unknown>) => Promise.race([p.then(() => 'answered', (e: unknown) => (e as Error).message), new Promise((r) => setImmediate(() => r('waiting')))]);

describe('SFTP write handle: writes ahead of the end', () => {
  it('answers a write ahead only once the gap before it is filled, and the body gets the bytes in order', async () => {
    const received: Buffer[] = [];
    const handle = new WriteHandle('f.bin', async (body: PassThrough) => {
      for await (const chunk of body) received.push(chunk as Buffer);
    });
    const second = handle.write(3, Buffer.from('def'));
    expect(await stateOf(second), 'a client waiting for this answer sends no more').to.equal('waiting');
    await handle.write(0, Buffer.from('abc'));
    expect(await stateOf(second)).to.equal('answered');
    expect(await handle.close()).to.equal(6);
    expect(Buffer.concat(received).toString()).to.equal('abcdef');
  });

  it('fails the writes waiting ahead when the upload fails or the session ends', async () => {
    const failing = new WriteHandle('f.bin', () => Promise.reject(new Error('the Node refused')));
    const waiting = failing.write(10, Buffer.from('x'));
    expect(await stateOf(waiting)).to.equal('the Node refused');
    const cut = new WriteHandle('g.bin', async (body: PassThrough) => {
      for await (const chunk of body) void chunk;
    });
    const ahead = cut.write(10, Buffer.from('x'));
    cut.abort();
    expect(await stateOf(ahead)).to.match(/session ended/);
  });
});
