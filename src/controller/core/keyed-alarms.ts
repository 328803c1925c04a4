import type { Clock } from '../../shared/clock.js';
import type { ScheduleTimers } from './schedule-timers.js';

/** Node's timers hold at most about 24.8 days; a later time is reached by waking up on the way (the caller checks the time when it fires). */
const longestTimerMs = 2 ** 31 - 1;

/**
 * At most one timer per key (a schedule), each armed for a moment on the clock: arming a key again
 * replaces its timer; a fired timer is forgotten before its work runs, so the work may arm it anew.
 */
export class KeyedAlarms {
  private readonly armed = new Map<string, unknown>();

  constructor(private readonly timers: ScheduleTimers, private readonly clock: Clock) {}

  /** Fires `fire` at `at` (at once when past), or earlier when `at` is beyond the longest timer. */
  arm(key: string, at: Date, fire: () => void): void {
    this.disarm(key);
    const wait = Math.min(longestTimerMs, Math.max(0, at.getTime() - this.clock.now().getTime()));
    this.armed.set(key, this.timers.setTimeout(() => {
      this.armed.delete(key);
      fire();
    }, wait));
  }

  disarm(key: string): void {
    const handle = this.armed.get(key);
    if (handle === undefined) return;
    this.timers.clearTimeout(handle);
    this.armed.delete(key);
  }

  clear(): void {
    for (const handle of this.armed.values()) this.timers.clearTimeout(handle);
    this.armed.clear();
  }
}
