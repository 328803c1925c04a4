/** How much of the past a watch can resume from: whichever bound is reached first. */
export interface RingLimits {
  maxEntries: number;
  maxAgeMs: number;
}

export interface RingEntry<T> {
  seq: number;
  /** When it was appended (clock milliseconds). */
  at: number;
  value: T;
}

/**
 * The recent past of a stream, bounded by count and age, so a client that reconnects gets what it
 * missed. Every append and every reservation takes the next number (`head`); a reserved number
 * marks a place in the stream (e.g. the end of one client's snapshot) without taking room.
 */
export class WatchRing<T> {
  private readonly slots: (RingEntry<T> | undefined)[];
  private start = 0;
  private count = 0;
  private last = 0;
  /** Every entry numbered up to this one is gone from the ring. */
  private forgottenThrough = 0;

  constructor(private readonly limits: RingLimits, private readonly now: () => number) {
    if (limits.maxEntries < 1) throw new Error('a watch ring holds at least one entry');
    this.slots = new Array<RingEntry<T> | undefined>(limits.maxEntries);
  }

  /** The last number given out. */
  get head(): number {
    return this.last;
  }

  get size(): number {
    this.forgetOld();
    return this.count;
  }

  append(value: T): RingEntry<T> {
    this.forgetOld();
    if (this.count === this.limits.maxEntries) this.dropOldest();
    const entry = { seq: ++this.last, at: this.now(), value };
    this.slots[(this.start + this.count) % this.slots.length] = entry;
    this.count += 1;
    return entry;
  }

  reserve(): number {
    return ++this.last;
  }

  /**
   * The entries numbered after `seq`, oldest first; undefined when the ring can no longer tell
   * (some of them were forgotten) or `seq` was never given out.
   */
  after(seq: number): RingEntry<T>[] | undefined {
    this.forgetOld();
    if (!Number.isSafeInteger(seq) || seq < this.forgottenThrough || seq > this.last) return undefined;
    const entries: RingEntry<T>[] = [];
    for (let i = 0; i < this.count; i++) {
      const entry = this.slots[(this.start + i) % this.slots.length]!;
      if (entry.seq > seq) entries.push(entry);
    }
    return entries;
  }

  /** Forgets every entry and every number given out so far: a resume from any of them finds nothing to go on. */
  forgetAll(): void {
    while (this.count > 0) this.dropOldest();
    this.forgottenThrough = ++this.last;
  }

  private forgetOld(): void {
    const oldest = this.now() - this.limits.maxAgeMs;
    while (this.count > 0 && this.slots[this.start]!.at < oldest) this.dropOldest();
  }

  private dropOldest(): void {
    this.forgottenThrough = this.slots[this.start]!.seq;
    this.slots[this.start] = undefined;
    this.start = (this.start + 1) % this.slots.length;
    this.count -= 1;
  }
}
