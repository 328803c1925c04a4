import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyAttempts } from '../core/errors.js';

/**
 * Counts failed attempts per key in a window. `check` refuses (429 with Retry-After) once the
 * allowance is used up; only failures are counted, so a user who signs in correctly is not slowed.
 */
export class AttemptLimiter {
  private readonly limiter: RateLimiterMemory;

  constructor(private readonly maxFailures: number, windowSeconds: number) {
    this.limiter = new RateLimiterMemory({ points: maxFailures, duration: windowSeconds });
  }

  async check(key: string): Promise<void> {
    const state = await this.limiter.get(key);
    if (state && state.consumedPoints >= this.maxFailures) throw tooManyAttempts(state.msBeforeNext / 1000);
  }

  async fail(key: string): Promise<void> {
    try {
      await this.limiter.consume(key);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
    }
  }

  async reset(key: string): Promise<void> {
    await this.limiter.delete(key);
  }
}
