import { tooManyAttempts } from '../core/errors.js';

/** One attempt's hold on a key's allowance; giving it back is for an attempt that succeeded. */
export interface Reservation {
  /** Frees the slot (once; a no-op after the window it was taken in has passed). */
  release(): void;
}

interface Window {
  used: number;
  endsAt: number;
}

/**
 * At most `maxAttempts` unsuccessful attempts per key in a fixed window. An attempt takes its slot
 * before the expensive check (`reserve`, synchronous, so concurrent attempts cannot all see room)
 * and gives it back only when it succeeds: a burst can never have more checks in flight than the
 * allowance, and a user who signs in correctly is not slowed.
 */
export class AttemptLimiter {
  private readonly windows = new Map<string, Window>();
  private nextSweep = 0;

  /** `refusalHint` ends the refusal's text: what else helps than waiting, for limits someone can lift. */
  constructor(
    private readonly maxAttempts: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly refusalHint?: string,
  ) {}

  /** Takes a slot, or refuses with 429 `too_many_attempts` and Retry-After until the window ends. */
  reserve(key: string): Reservation {
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || now >= window.endsAt) {
      window = { used: 0, endsAt: now + this.windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    if (window.used >= this.maxAttempts) throw tooManyAttempts(Math.ceil((window.endsAt - now) / 1000), this.refusalHint);
    window.used += 1;
    const taken = window;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        if (this.windows.get(key) === taken && taken.used > 0) taken.used -= 1;
      },
    };
  }

  /** Forgets the key's count: the account proved itself, so earlier failures stop counting. */
  reset(key: string): void {
    this.windows.delete(key);
  }

  /** Forgets every key `matches` picks: an administrator unlocked the account they belong to. */
  resetWhere(matches: (key: string) => boolean): void {
    for (const key of [...this.windows.keys()]) if (matches(key)) this.windows.delete(key);
  }

  /** Drops ended windows at most once a window, so keys from a flood of addresses do not pile up. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.windowSeconds * 1000;
    for (const [key, window] of this.windows) if (now >= window.endsAt) this.windows.delete(key);
  }
}

/**
 * Reserves a slot in each limiter, all or none: when one refuses, the slots already taken go back
 * (the attempt is not checked, so it must not count twice).
 */
export function reserveAll(slots: [AttemptLimiter, string][]): Reservation {
  const held: Reservation[] = [];
  try {
    for (const [limiter, key] of slots) held.push(limiter.reserve(key));
  } catch (e) {
    held.forEach((r) => r.release());
    throw e;
  }
  return { release: () => held.forEach((r) => r.release()) };
}
