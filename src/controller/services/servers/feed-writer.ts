import type { Logger } from '../../../shared/logger.js';
import type { ChangeFeedStore } from '../../store/change-feed.js';

export interface FeedWriterLimits {
  /** Items in one batch (a batch is one document: far below MongoDB's 16 MiB). */
  maxBatch: number;
  /** Items waiting while the store cannot be written; past it they are dropped and readers told they lost track. */
  maxQueued: number;
  retryMs: number;
}

export const defaultFeedWriterLimits: FeedWriterLimits = { maxBatch: 500, maxQueued: 20_000, retryMs: 250 };

/**
 * This Controller's side of the store's change feed: what it changed, appended in the order it
 * happened, one batch at a time (everything queued while the previous batch was being written goes
 * in the next one, so a burst costs a few writes, not one each), each followed by advancing the
 * writer's record. A batch that fails is retried under the same number until it is stored or the
 * writer stops.
 */
export class FeedWriter {
  private queue: unknown[] = [];
  private stored = 0;
  private lost = false;
  private flushing?: Promise<void>;
  private stopped = false;
  private wakeRetry?: () => void;

  constructor(
    private readonly feed: ChangeFeedStore,
    private readonly writer: () => string,
    private readonly now: () => string,
    private readonly logger: Logger,
    private readonly limits = defaultFeedWriterLimits,
  ) {}

  /** The last batch number stored. */
  get seq(): number {
    return this.stored;
  }

  push(item: unknown): void {
    if (this.stopped) return;
    if (this.queue.length >= this.limits.maxQueued) {
      this.logger.warn({ event: 'server_feed_dropped', dropped: this.queue.length }, 'the store could not take server changes in time: other Controllers\' watchers get a fresh snapshot');
      this.queue = [];
      this.lost = true;
    }
    this.queue.push(item);
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
  }

  /** Starts numbering again from 1 (the writer took a new id: readers follow it from its first batch). */
  restart(): void {
    this.stored = 0;
    this.lost = true;
  }

  /** Writes what is queued while the store answers; gives up on a failing batch only when stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeRetry?.();
    await this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const items = this.queue.splice(0, this.limits.maxBatch);
      const lost = this.lost;
      this.lost = false;
      const batch = { writer: this.writer(), seq: this.stored + 1, at: this.now(), items, ...(lost ? { lost } : {}) };
      if (!(await this.write(batch))) return;
      // A restart while it was written numbers from 1 under the new id: this batch was the old one's.
      if (batch.writer === this.writer()) this.stored = batch.seq;
      await this.advance(batch.writer, batch.seq);
    }
  }

  /** Readers look up only what the writer's record says is stored; one that fails to advance is advanced by the next batch or renewal. */
  private async advance(writer: string, seq: number): Promise<void> {
    try {
      await this.feed.advance(writer, seq);
    } catch (err) {
      this.logger.debug({ event: 'server_feed_advance_failed', err }, 'advancing this Controller\'s record in the server feed failed; the next batch or renewal does');
    }
  }

  private async write(batch: Parameters<ChangeFeedStore['write']>[0]): Promise<boolean> {
    for (let failures = 0; ; failures++) {
      try {
        await this.feed.write(batch);
        if (failures > 0) this.logger.info({ event: 'server_feed_resumed', failures }, 'server changes reach the store again');
        return true;
      } catch (err) {
        if (failures === 0) this.logger.warn({ event: 'server_feed_write_failed', err }, 'writing server changes to the store failed; retrying');
        if (this.stopped) return false;
        await this.pause();
      }
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeRetry = undefined;
        resolve();
      };
      const timer = setTimeout(wake, this.limits.retryMs);
      this.wakeRetry = wake;
    });
  }
}
