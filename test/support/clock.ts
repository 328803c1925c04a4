import type { Clock } from '../../src/shared/clock.js';

/** A clock tests move by hand, so expiry rules are checked without waiting. */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
