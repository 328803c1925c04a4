import { expect } from 'chai';
import type { ScheduleTimers } from '../../src/controller/core/schedule-timers.js';
import { GenerationOrder } from '../../src/controller/services/servers/generation-order.js';

/** Timers fired by hand: `fire()` runs every one armed and not cleared. */
class HandTimers implements ScheduleTimers {
  private armed = new Map<number, () => void>();
  private next = 0;
  setTimeout(fn: () => void, _ms: number): unknown {
    this.armed.set(++this.next, fn);
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.armed.delete(handle as number);
  }
  get pending(): number {
    return this.armed.size;
  }
  fire(): void {
    const due = [...this.armed.values()];
    this.armed.clear();
    for (const fn of due) fn();
  }
}

describe('GenerationOrder: each server\'s changes in generation order across Controllers', () => {
  let passed: string[];
  let timers: HandTimers;
  let order: GenerationOrder<string>;
  const change = (generation: number | undefined, value: string, serverId = 's1') => ({ serverId, generation, value });
  beforeEach(() => {
    passed = [];
    timers = new HandTimers();
    order = new GenerationOrder((v) => passed.push(v), timers);
  });

  it('drops a state older than one passed on, and passes equal generations (a report of the same change)', () => {
    order.own(change(1, 'a1'));
    order.own(change(2, 'a2'));
    order.heard(change(1, 'b1'));
    order.heard(change(2, 'b2'));
    expect(passed).to.deep.equal(['a1', 'a2', 'b2']);
  });

  it('a change here that skips generations of a server changed elsewhere waits for them, then goes on in order', () => {
    order.heard(change(42, 'b42'));
    order.own(change(44, 'a44 (report over B\'s 44)'));
    order.own(change(44, 'a44 again'));
    expect(passed, 'held until B\'s 43 comes').to.deep.equal(['b42']);
    order.heard(change(43, 'b43'));
    order.heard(change(44, 'b44'));
    expect(passed).to.deep.equal(['b42', 'b43', 'a44 (report over B\'s 44)', 'a44 again', 'b44']);
    expect(timers.pending, 'the deadline cleared').to.equal(0);
  });

  it('what waits goes on at the deadline when the skipped changes never come', () => {
    order.heard(change(5, 'b5'));
    order.own(change(8, 'a8'));
    order.own(change(9, 'a9'));
    expect(passed).to.deep.equal(['b5']);
    timers.fire();
    expect(passed).to.deep.equal(['b5', 'a8', 'a9']);
    order.heard(change(6, 'b6'));
    expect(passed, 'late and older: dropped').to.deep.equal(['b5', 'a8', 'a9']);
  });

  it('never holds a server only this Controller changes, nor one it has not seen yet', () => {
    order.own(change(1, 'a1'));
    order.own(change(3, 'a3: two changes in one write'));
    order.own(change(7, 'x7', 's2'));
    expect(passed).to.deep.equal(['a1', 'a3: two changes in one write', 'x7']);
    expect(timers.pending).to.equal(0);
  });

  it('a deletion waits behind what waits, and starts the server afresh', () => {
    order.heard(change(2, 'b2'));
    order.own(change(4, 'a4'));
    order.own(change(undefined, 'a deleted'));
    order.heard(change(3, 'b3'));
    expect(passed).to.deep.equal(['b2', 'b3', 'a4', 'a deleted']);
    order.own(change(1, 'a1 (a new server of that id)'));
    order.own(change(3, 'a3'));
    expect(passed.slice(-2), 'not changed elsewhere since its deletion').to.deep.equal(['a1 (a new server of that id)', 'a3']);
  });

  it('lost track of the others: nothing waits any more', () => {
    order.heard(change(1, 'b1'));
    order.own(change(3, 'a3'));
    order.lostTrack();
    expect(passed).to.deep.equal(['b1', 'a3']);
    expect(timers.pending).to.equal(0);
  });

  it('orders two states of one generation by when they were written', () => {
    order.own({ serverId: 's1', generation: 4, at: '2026-11-30T10:00:00.002Z', value: 'a4 (a report, later)' });
    order.heard({ serverId: 's1', generation: 4, at: '2026-11-30T10:00:00.001Z', value: 'b4 (the change itself, heard late)' });
    order.heard({ serverId: 's1', generation: 4, at: '2026-11-30T10:00:00.003Z', value: 'b4 (a later report)' });
    expect(passed).to.deep.equal(['a4 (a report, later)', 'b4 (a later report)']);
  });

  it('a state read from the store drops the feed\'s older ones, passes nothing itself, and frees what waited for it', () => {
    order.heard(change(2, 'b2'));
    order.atLeast('s1', { generation: 5, at: '2026-11-30T10:00:00.005Z' });
    order.heard({ serverId: 's1', generation: 3, value: 'b3 (late)' });
    order.heard({ serverId: 's1', generation: 5, at: '2026-11-30T10:00:00.004Z', value: 'b5 (an earlier write of 5)' });
    order.atLeast('s1', { generation: 4 });
    order.heard({ serverId: 's1', generation: 5, at: '2026-11-30T10:00:00.005Z', value: 'b5' });
    expect(passed, 'an older read does not lower the mark').to.deep.equal(['b2', 'b5']);

    order.heard(change(1, 'x1', 's2'));
    order.own(change(4, 'y4', 's2'));
    expect(passed.at(-1), 'waits for 2 and 3').to.equal('x1');
    order.atLeast('s2', { generation: 3 });
    expect(passed.slice(-1)).to.deep.equal(['y4']);
    expect(timers.pending, 'its deadline cleared').to.equal(0);
  });
});
