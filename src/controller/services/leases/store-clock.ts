import type { Clock } from '../../../shared/clock.js';

/**
 * The store's clock as seen from this process: the local clock plus the offset last measured
 * against the store (`hello`'s `localTime` on MongoDB and FerretDB). Every Controller of one
 * store then judges lease expiry by the same clock, so their own clocks may drift apart; the
 * lease margin covers the measurement's error (half a round trip) and the drift between syncs.
 */
export class StoreClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly local: Clock, private readonly serverTime: () => Promise<number>) {}

  /** Measures the offset again; a failure leaves the last one and throws (the renewal fails with it). */
  async sync(): Promise<void> {
    const server = await this.serverTime();
    this.offsetMs = server - this.local.now().getTime();
  }

  now(): Date {
    return new Date(this.local.now().getTime() + this.offsetMs);
  }
}
