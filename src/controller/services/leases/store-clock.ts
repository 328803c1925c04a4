import type { Clock } from '../../../shared/clock.js';

/**
 * The store's clock as seen from this process: the store's time at the last sync (`hello`'s
 * `localTime` on MongoDB and FerretDB) plus the time elapsed since on this process's monotonic
 * clock. Every Controller of one store then judges lease expiry by the same clock, so their own
 * clocks may drift apart; the lease margin covers the measurement's error (half a round trip) and
 * the drift between syncs. The wall clock is not used between syncs: a step of it (an NTP
 * correction, or a test's clock moved on by minutes) would move every expiry judged here, and a
 * lease released "as of now" would stay live as long as the clock ran ahead.
 */
export class StoreClock implements Clock {
  private synced?: { serverMs: number; monotonicMs: number };

  constructor(
    private readonly serverTime: () => Promise<number>,
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  /** Measures the store's time again; a failure leaves the last one and throws (the renewal fails with it). */
  async sync(): Promise<void> {
    const serverMs = await this.serverTime();
    this.synced = { serverMs, monotonicMs: this.monotonic() };
  }

  /** Before the first sync (which a Controller's start awaits) there is only this process's wall clock. */
  now(): Date {
    return new Date(this.synced ? this.synced.serverMs + (this.monotonic() - this.synced.monotonicMs) : Date.now());
  }
}
