import { DomainError } from '../core/errors.js';

/** Seconds a refused upload is told to wait. */
const retryAfterSeconds = 5;

/**
 * At most `slots` request bodies stream at once; the others wait, unread (TCP holds the client
 * back), for at most `waitMs`. Each body in flight holds a few MiB on its way to the Agent or the
 * disk, so this cap is what bounds the Controller's memory under a burst of uploads.
 *
 * One user (`holder`) may hold or wait for at most `perUser` of them at once: past that, 429
 * `too_many_attempts` at once (with `Retry-After` and `Connection: close`, the body unread), so one
 * user's trickled uploads never take every slot from the other teams.
 */
export class UploadGate {
  private active = 0;
  private readonly waiting = new Set<() => void>();
  /** Per user, the uploads holding or waiting for a slot. */
  private readonly perHolder = new Map<string, number>();

  constructor(readonly slots: number, readonly waitMs: number, readonly perUser = Number.POSITIVE_INFINITY) {}

  /** Resolves with the function that gives the slot back (call it once, whatever happened). */
  async enter(holder?: string): Promise<() => void> {
    const release = this.claim(holder);
    try {
      await this.slot();
    } catch (e) {
      release();
      throw e;
    }
    const leave = this.leaver();
    return () => {
      release();
      leave();
    };
  }

  /** Uploads the user holds or waits for now. */
  heldBy(holder: string): number {
    return this.perHolder.get(holder) ?? 0;
  }

  private claim(holder: string | undefined): () => void {
    if (holder === undefined) return () => undefined;
    const held = this.perHolder.get(holder) ?? 0;
    if (held >= this.perUser) {
      throw new DomainError('too_many_attempts', `You have ${held} uploads in progress; retry when one is done.`, {
        headers: { 'Retry-After': String(retryAfterSeconds), Connection: 'close' },
      });
    }
    this.perHolder.set(holder, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.perHolder.get(holder) ?? 1) - 1;
      if (now > 0) this.perHolder.set(holder, now);
      else this.perHolder.delete(holder);
    };
  }

  private async slot(): Promise<void> {
    if (this.active < this.slots) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        this.waiting.delete(admit);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(admit);
        reject(new DomainError('too_many_attempts', `${this.slots} uploads are in progress; retry shortly.`, { headers: { 'Retry-After': String(retryAfterSeconds), Connection: 'close' } }));
      }, this.waitMs);
      this.waiting.add(admit);
    });
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
