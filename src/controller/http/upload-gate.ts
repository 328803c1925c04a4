import { DomainError } from '../core/errors.js';

/**
 * At most `slots` request bodies stream at once; the others wait, unread (TCP holds the client
 * back), for at most `waitMs`. Each body in flight holds a few MiB on its way to the Agent or the
 * disk, so this cap is what bounds the Controller's memory under a burst of uploads.
 */
export class UploadGate {
  private active = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly slots: number, readonly waitMs: number) {}

  /** Resolves with the function that gives the slot back (call it once, whatever happened). */
  async enter(): Promise<() => void> {
    if (this.active < this.slots) {
      this.active += 1;
      return this.leaver();
    }
    await new Promise<void>((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        this.waiting.delete(admit);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(admit);
        reject(new DomainError('too_many_attempts', `${this.slots} uploads are in progress; retry shortly.`, { headers: { 'Retry-After': '5', Connection: 'close' } }));
      }, this.waitMs);
      this.waiting.add(admit);
    });
    return this.leaver();
  }

  get inFlight(): number {
    return this.active;
  }

  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      // The slot passes straight to the longest waiter, so `active` never dips and lets a newcomer jump the queue.
      const next = this.waiting.values().next();
      if (next.done) this.active -= 1;
      else next.value();
    };
  }
}
