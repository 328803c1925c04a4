import type { Clock } from '../../src/shared/clock.js';

/**
 * A clock tests move by hand, so expiry rules are checked without waiting. It is also a timer
 * source (backup schedules' timers): a timer fires when `advance` moves the clock past its time.
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  private nextHandle = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
    let due = this.nextDue();
    while (due) {
      this.timers.delete(due[0]);
      due[1].fn();
      due = this.nextDue();
    }
  }

  private nextDue(): [number, { at: number; fn: () => void }] | undefined {
    const now = this.now().getTime();
    return [...this.timers].filter(([, t]) => t.at <= now).sort((a, b) => a[1].at - b[1].at).at(0);
  }

  setTimeout(fn: () => void, ms: number): number {
    const handle = ++this.nextHandle;
    this.timers.set(handle, { at: this.now().getTime() + ms, fn });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
}
