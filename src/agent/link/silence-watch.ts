/** The timer functions the watch uses; a test passes its own to drive time by hand. */
export interface WatchTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: WatchTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Notices a Controller that has said nothing for longer than it promised (Welcome.silence_limit_ms).
 * A frozen Controller (SIGSTOP, a stalled host) keeps its TCP link open, so gRPC keepalive would
 * notice only after 35 s, while the others may take its Nodes after the lease (15 s). One timer at
 * a time, due when the limit runs out: hearing something only moves a number, not the timer.
 */
export class SilenceWatch {
  private limitMs = 0;
  private lastHeard = 0;
  private timer: unknown;

  constructor(private readonly onSilent: (silentMs: number, limitMs: number) => void, private readonly timers: WatchTimers = realTimers) {}

  /** Watches with this limit from now on (0: stops watching). */
  arm(limitMs: number): void {
    this.stop();
    this.limitMs = limitMs;
    this.lastHeard = this.timers.now();
    if (limitMs > 0) this.schedule(limitMs);
  }

  /** The Controller said something. */
  heard(): void {
    this.lastHeard = this.timers.now();
  }

  stop(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.limitMs = 0;
  }

  private schedule(inMs: number): void {
    this.timer = this.timers.setTimeout(() => this.check(), inMs);
  }

  private check(): void {
    this.timer = undefined;
    if (this.limitMs <= 0) return;
    const silentMs = this.timers.now() - this.lastHeard;
    if (silentMs < this.limitMs) {
      this.schedule(this.limitMs - silentMs);
      return;
    }
    const limitMs = this.limitMs;
    this.stop();
    this.onSilent(Math.round(silentMs), limitMs);
  }
}
