import { AgentError } from '../errors.js';

/** A lease the Controller asks for without saying how long (0). */
export const defaultLeaseMs = 60_000;
/** The longest lease the Agent grants: a Controller gone for longer leaves nothing behind for longer. */
export const maxLeaseMs = 60 * 60_000;

export const leaseMsOf = (asked: number) => (asked > 0 ? Math.min(asked, maxLeaseMs) : defaultLeaseMs);

/** Ids the Controller chooses for snapshots, stages and backups: they become file names. */
const idPattern = /^[A-Za-z0-9-]{1,100}$/;

export function checkId(field: string, id: string): string {
  if (!idPattern.test(id)) throw new AgentError('INVALID_REQUEST', `${field}: 1 to 100 letters, digits and dashes.`);
  return id;
}

interface Held<T> {
  value: T;
  ms: number;
  timer?: NodeJS.Timeout;
  /** Requests using it now: it does not expire under them. */
  busy: number;
}

/**
 * Things the Controller opened and must keep naming (snapshots, stages): each ends when asked,
 * or `ms` after the last request that used it finished, whichever comes first. `end` runs
 * exactly once per thing, however it ends.
 */
export class Leases<T> {
  private readonly held = new Map<string, Held<T>>();

  constructor(private readonly what: string, private readonly end: (value: T, id: string) => Promise<void>, private readonly onError: (err: unknown, id: string) => void) {}

  has(id: string): boolean {
    return this.held.has(id);
  }

  /** Holds `value` under `id` (ALREADY_EXISTS when the id is taken). */
  add(id: string, value: T, ms: number): void {
    if (this.held.has(id)) throw new AgentError('ALREADY_EXISTS', `A ${this.what} ${id} is open already.`);
    const held: Held<T> = { value, ms, busy: 0 };
    this.held.set(id, held);
    this.arm(id, held);
  }

  /** Runs `work` on the thing (NOT_FOUND when it ended or never was); its lease restarts when `work` is done. */
  async use<R>(id: string, work: (value: T) => Promise<R>): Promise<R> {
    const held = this.held.get(id);
    if (!held) throw new AgentError('NOT_FOUND', `No ${this.what} ${id} is open (it was closed, it expired, or it never was).`);
    held.busy++;
    clearTimeout(held.timer);
    try {
      return await work(held.value);
    } finally {
      held.busy--;
      this.arm(id, held);
    }
  }

  /** Ends the thing now; an unknown id is not an error. */
  async release(id: string): Promise<void> {
    const held = this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    clearTimeout(held.timer);
    await this.end(held.value, id);
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((id) => this.release(id)));
  }

  private arm(id: string, held: Held<T>): void {
    if (held.busy > 0 || this.held.get(id) !== held) return;
    clearTimeout(held.timer);
    held.timer = setTimeout(() => {
      this.release(id).catch((err: unknown) => this.onError(err, id));
    }, held.ms);
    held.timer.unref();
  }
}
