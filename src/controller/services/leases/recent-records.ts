import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/logger.js';

/** How far back a look reaches: the records' times are written by each Controller's own clock, which may be this far apart. */
const skewMarginMs = 5 * 60_000;

/**
 * Hands a fleet-wide job the records changed through other Controllers (a schedule created or
 * edited there), by looking every `everyMs` for those whose `field` (an ISO time) is recent. Each
 * version of a record is handed over once; handing one over twice is harmless to the jobs (arming
 * a timer again replaces it), missing one is not, hence the wide margin.
 */
export class RecentRecords<D extends { _id: string }> {
  private timer?: NodeJS.Timeout;
  private readonly handled = new Map<string, string>();

  constructor(
    private readonly what: string,
    private readonly find: (sinceIso: string) => Promise<D[]>,
    private readonly version: (doc: D) => string,
    private readonly changed: (doc: D) => void,
    private readonly deps: { clock: Clock; logger: Logger },
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.stop();
    this.schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.handled.clear();
  }

  private schedule(): void {
    const timer = setTimeout(() => {
      this.look()
        .catch((err: unknown) => this.deps.logger.warn({ err }, `looking for ${this.what} changed through other Controllers failed`))
        .finally(() => {
          if (this.timer === timer) this.schedule();
        });
    }, this.everyMs);
    timer.unref();
    this.timer = timer;
  }

  private async look(): Promise<void> {
    const since = new Date(this.deps.clock.now().getTime() - skewMarginMs).toISOString();
    const docs = await this.find(since);
    if (this.timer === undefined) return;
    for (const doc of docs) {
      const version = this.version(doc);
      if (this.handled.get(doc._id) === version) continue;
      this.handled.set(doc._id, version);
      this.changed(doc);
    }
    // Versions older than the look are not found again: they need not be remembered.
    for (const [id, version] of this.handled) if (version < since) this.handled.delete(id);
  }
}
