import type { ScheduleTimers } from '../../core/schedule-timers.js';
import type { Collection } from '../../store/collection.js';
import type { ServerDoc } from '../../store/records.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import { unlessAborted } from '../workflows/report-waits.js';
import { Stopped } from '../workflows/step-failure.js';

/** A task that could not be done: its message is the task's `detail`. */
export class TaskFailure extends Error {}

/**
 * The waits of a run, on the schedules' timers (a test's clock moves them) and ended by the
 * Controller's stop signal with `Stopped`: the run then ends where it is.
 */
export class RunWaits {
  constructor(
    private readonly timers: ScheduleTimers,
    private readonly changes: ServerChangeHub,
    private readonly servers: Pick<Collection<ServerDoc>, 'findById'>,
    private readonly signal: AbortSignal,
  ) {}

  throwIfStopping(): void {
    if (this.signal.aborted) throw new Stopped();
  }

  /** `work`, unless the Controller stops first (the work goes on; the run ends where it is). */
  until<T>(work: Promise<T>): Promise<T> {
    return unlessAborted(work, this.signal);
  }

  /** Resolves after `ms` (at once when not positive). */
  delay(ms: number): Promise<void> {
    this.throwIfStopping();
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const stopped = () => {
        this.timers.clearTimeout(handle);
        reject(new Stopped());
      };
      const handle = this.timers.setTimeout(() => {
        this.signal.removeEventListener('abort', stopped);
        resolve();
      }, ms);
      this.signal.addEventListener('abort', stopped, { once: true });
    });
  }

  /**
   * The server's record once `reached` takes it: the record as it is read now, or a later change
   * (heard from before the read, so none is missed). Fails (TaskFailure naming `what`) when the
   * server is deleted or `deadlineMs` passes first. `cancel` gives the wait up (the action it
   * waited for was refused).
   */
  server(serverId: string, reached: (doc: ServerDoc) => boolean, what: string, deadlineMs: number): { arrived: Promise<ServerDoc>; cancel: () => void } {
    this.throwIfStopping();
    // Assigned by the executor, which runs before the constructor returns.
    let cancel!: () => void;
    const arrived = new Promise<ServerDoc>((resolve, reject) => {
      let settled = false;
      const end = (settle: () => void) => {
        if (settled) return;
        settled = true;
        this.timers.clearTimeout(timer);
        unsubscribe();
        this.signal.removeEventListener('abort', stopped);
        settle();
      };
      const stopped = () => end(() => reject(new Stopped()));
      const seen = (doc: ServerDoc | null) => {
        if (!doc) end(() => reject(new TaskFailure('the server was deleted')));
        else if (reached(doc)) end(() => resolve(doc));
      };
      const unsubscribe = this.changes.subscribe(({ doc, deleted }) => {
        if (doc._id === serverId) seen(deleted ? null : doc);
      });
      const timer = this.timers.setTimeout(() => end(() => reject(new TaskFailure(`the server did not ${what} within ${Math.round(deadlineMs / 1000)} s`))), deadlineMs);
      this.signal.addEventListener('abort', stopped, { once: true });
      cancel = () => end(() => reject(new TaskFailure('given up')));
      this.servers.findById(serverId).then(seen, (err: unknown) => end(() => reject(err instanceof Error ? err : new Error(String(err)))));
    });
    arrived.catch(() => undefined);
    return { arrived, cancel };
  }
}
