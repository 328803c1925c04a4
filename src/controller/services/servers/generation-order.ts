import type { ScheduleTimers } from '../../core/schedule-timers.js';

/** A server's change as ordered here: its generation, or none for its deletion. */
export interface OrderedChange<T> {
  serverId: string;
  generation?: number;
  /** When the state was written (the record's `updatedAt`, later at every write): orders two states of one generation. */
  at?: string;
  value: T;
}

/** Where a server's changes stand: the newest state passed on, or known from the store. */
interface Mark {
  generation: number;
  at?: string;
}

/** Whether `change` is older than `mark`: a lower generation, or the same one written earlier. */
const olderThan = (change: Mark, mark: Mark | undefined) =>
  mark !== undefined && (change.generation < mark.generation || (change.generation === mark.generation && change.at !== undefined && mark.at !== undefined && change.at < mark.at));

/** How long a change of this Controller waits for the other Controllers' changes it skipped past. */
export const gapWaitMs = 1_000;

/**
 * Puts each server's changes in generation order for the watch, whichever Controller made them.
 *
 * A generation never goes back, so a state older than one passed on is dropped: a watcher never
 * sees a desired state undone. A state read from the store counts too (`atLeast`): a snapshot may
 * show what the feed has not brought yet, and the feed's older states must not follow it. But with several Controllers a change can be heard late: B writes
 * generations 43 and 44, and A (its Node's holder) writes its Agent's report over the record as it
 * now stands, at 44, before the store's feed has brought it B's 43. Passing A's 44 on at once
 * would drop B's 43 when it comes. So a change of this Controller that skips generations of a
 * server others have changed waits for them (at most `gapWaitMs`, then it goes on without them:
 * the feed may have lost them), and whatever of the server comes after it waits behind it.
 */
export class GenerationOrder<T> {
  /** The newest state passed on (or read from the store) of each server. */
  private readonly passed = new Map<string, Mark>();
  /** Servers another Controller has changed: only their generations can be skipped by a write here. */
  private readonly changedElsewhere = new Set<string>();
  private readonly waiting = new Map<string, { changes: OrderedChange<T>[]; timer: unknown }>();

  constructor(
    private readonly pass: (value: T) => void,
    private readonly timers: ScheduleTimers,
    private readonly waitMs = gapWaitMs,
  ) {}

  /** A change this Controller made. */
  own(change: OrderedChange<T>): void {
    const held = this.waiting.get(change.serverId);
    if (held) held.changes.push(change);
    else if (this.skips(change)) this.hold(change);
    else this.release(change);
  }

  /** A change another Controller made, heard through the store. */
  heard(change: OrderedChange<T>): void {
    if (change.generation !== undefined) this.changedElsewhere.add(change.serverId);
    this.release(change);
    const held = this.waiting.get(change.serverId);
    if (held && !this.skips(held.changes[0])) this.flush(change.serverId);
  }

  /**
   * The server's record as read from the store now: states older than it are dropped from here on
   * (nothing is passed on; the feed brings this state itself). What waited for it goes on.
   */
  atLeast(serverId: string, mark: Mark): void {
    const last = this.passed.get(serverId);
    if (last !== undefined && !olderThan(last, mark)) return;
    this.passed.set(serverId, mark);
    const held = this.waiting.get(serverId);
    if (held && !this.skips(held.changes[0])) this.flush(serverId);
  }

  /** Changes of other Controllers were missed: nothing waits for them any more. */
  lostTrack(): void {
    for (const serverId of [...this.waiting.keys()]) this.flush(serverId);
  }

  private skips({ serverId, generation }: OrderedChange<T>): boolean {
    const last = this.passed.get(serverId)?.generation;
    return generation !== undefined && last !== undefined && this.changedElsewhere.has(serverId) && generation > last + 1;
  }

  private hold(change: OrderedChange<T>): void {
    const timer = this.timers.setTimeout(() => this.flush(change.serverId), this.waitMs);
    this.waiting.set(change.serverId, { changes: [change], timer });
  }

  private flush(serverId: string): void {
    const held = this.waiting.get(serverId);
    if (!held) return;
    this.waiting.delete(serverId);
    this.timers.clearTimeout(held.timer);
    for (const change of held.changes) this.release(change);
  }

  private release({ serverId, generation, at, value }: OrderedChange<T>): void {
    if (generation === undefined) {
      this.passed.delete(serverId);
      this.changedElsewhere.delete(serverId);
    } else {
      if (olderThan({ generation, at }, this.passed.get(serverId))) return;
      this.passed.set(serverId, { generation, at });
    }
    this.pass(value);
  }
}
