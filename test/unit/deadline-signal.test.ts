import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { deadlineSignal } from '../../src/shared/deadline.js';

setFlagsFromString('--expose-gc');
/** A full collection, as a busy Controller would run one while a webhook endpoint hangs. */
const collect = runInNewContext('gc') as () => void;

const aborted = (signal: AbortSignal, withinMs: number) => new Promise<unknown>((resolve, reject) => {
  const late = setTimeout(() => reject(new Error(`not aborted within ${withinMs} ms`)), withinMs);
  signal.addEventListener('abort', () => {
    clearTimeout(late);
    resolve(signal.reason);
  }, { once: true });
});

describe('deadlineSignal: a timeout that also follows another signal', () => {
  it('fires its TimeoutError even when a garbage collection runs while it waits (AbortSignal.any did not: nodejs/node#57736)', async () => {
    const stop = new AbortController();
    const signal = deadlineSignal(150, stop.signal);
    const collecting = setInterval(collect, 20);
    try {
      const reason = await aborted(signal, 3000);
      expect(reason).to.be.instanceOf(DOMException).with.property('name', 'TimeoutError');
    } finally {
      clearInterval(collecting);
    }
  });

  it('aborts as soon as the other signal does, with its reason', async () => {
    const stop = new AbortController();
    const signal = deadlineSignal(60_000, stop.signal);
    stop.abort(new Error('closing'));
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as Error).message).to.equal('closing');
  });

  it('is aborted from the start when the other signal already is', () => {
    const signal = deadlineSignal(60_000, AbortSignal.abort(new Error('gone')));
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as Error).message).to.equal('gone');
  });

  it('leaves no listener on a long-lived signal once its time is up', async () => {
    const stop = new AbortController();
    const signals = [deadlineSignal(30, stop.signal), deadlineSignal(30, stop.signal)];
    expect(getEventListeners(stop.signal, 'abort')).to.have.length(2);
    await Promise.all(signals.map((s) => aborted(s, 3000)));
    expect(getEventListeners(stop.signal, 'abort')).to.have.length(0);
  });
});
