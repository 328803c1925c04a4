/**
 * At most `running` Enrolls at work, the next `waiting` in line (first come, first served), and a
 * refusal beyond: a fleet enrolling at once is worked through at a steady pace, with heartbeats
 * handled between, instead of thousands of half-done enrollments whose answers all come late.
 */
export class EnrollSlots {
  private busy = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly running: number, private readonly waiting: number) {}

  /** Resolves true when the caller may work (it must `release()` after), false when the line is full. */
  acquire(): Promise<boolean> {
    if (this.busy < this.running) {
      this.busy++;
      return Promise.resolve(true);
    }
    if (this.queue.length >= this.waiting) return Promise.resolve(false);
    return new Promise((resolve) => this.queue.push(() => resolve(true)));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy--;
  }
}
