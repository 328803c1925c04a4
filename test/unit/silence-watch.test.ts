import { expect } from 'chai';
import { SilenceWatch, type WatchTimers } from '../../src/agent/link/silence-watch.js';

/** Timers moved by hand: `advance` fires what falls due, in order. */
function manualTimers() {
  let now = 0;
  let nextId = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: WatchTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      due.set(++nextId, { at: now + ms, fn });
      return nextId;
    },
    clearTimeout: (id) => void due.delete(id as number),
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const next = [...due.entries()].sort((a, b) => a[1].at - b[1].at).find(([, t]) => t.at <= until);
      if (!next) break;
      due.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = until;
  };
  return { timers, advance, pending: () => due.size };
}

describe('the Agent\'s watch on a silent Controller', () => {
  it('fires once the Controller has said nothing for the limit, and only then', () => {
    const { timers, advance } = manualTimers();
    const silent: [number, number][] = [];
    const watch = new SilenceWatch((silentMs, limitMs) => silent.push([silentMs, limitMs]), timers);
    watch.arm(1_500);
    advance(1_499);
    expect(silent).to.deep.equal([]);
    advance(1);
    expect(silent).to.deep.equal([[1_500, 1_500]]);
    advance(10_000);
    expect(silent, 'once per arming').to.have.length(1);
  });

  it('counts the limit from the last message heard', () => {
    const { timers, advance } = manualTimers();
    const silent: number[] = [];
    const watch = new SilenceWatch((silentMs) => silent.push(silentMs), timers);
    watch.arm(1_500);
    // A Controller keeping to its keepalives (a third of the limit) is never left.
    for (let i = 0; i < 20; i++) {
      advance(500);
      watch.heard();
    }
    expect(silent).to.deep.equal([]);
    advance(1_000);
    watch.heard();
    advance(1_499);
    expect(silent).to.deep.equal([]);
    advance(1);
    expect(silent).to.deep.equal([1_500]);
  });

  it('watches nothing without a limit (a Controller that states none) and after stop', () => {
    const { timers, advance, pending } = manualTimers();
    const silent: number[] = [];
    const watch = new SilenceWatch((silentMs) => silent.push(silentMs), timers);
    watch.arm(0);
    expect(pending(), 'no timer without a limit').to.equal(0);
    watch.arm(1_000);
    advance(500);
    watch.stop();
    expect(pending()).to.equal(0);
    advance(5_000);
    expect(silent).to.deep.equal([]);
  });

  it('takes a new limit at a new arming (the Welcome\'s after the one remembered)', () => {
    const { timers, advance } = manualTimers();
    const silent: [number, number][] = [];
    const watch = new SilenceWatch((silentMs, limitMs) => silent.push([silentMs, limitMs]), timers);
    watch.arm(7_500);
    advance(1_000);
    watch.arm(1_500);
    advance(1_500);
    expect(silent).to.deep.equal([[1_500, 1_500]]);
  });
});
