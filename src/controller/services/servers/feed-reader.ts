import type { ChangeFeedStore, FeedWriterDoc } from '../../store/change-feed.js';

/** What the reader hands on: one batch's items, in order, or word that some were missed. */
export interface FeedListener {
  items(items: unknown[]): void;
  /** Batches were missed (trimmed before they were read, or dropped by their writer). */
  lostTrack(): void;
}

/**
 * Follows every other writer of the store's change feed: for each, the last batch number read,
 * and at each poll the next ones looked up by id until one is not there yet. A writer numbers its
 * batches one after another and stores each after the one before, so a batch not there yet means
 * nothing after it is either, and none is skipped. A next batch missing while the writer says it
 * stored later ones was trimmed unread: the listener is told it lost track.
 */
export class FeedReader {
  private readonly positions = new Map<string, number>();

  constructor(private readonly feed: ChangeFeedStore, private readonly self: () => string, private readonly listener: FeedListener) {}

  /** Begins after what every writer has stored so far: what came before is in the store's records already. */
  async start(): Promise<void> {
    for (const writer of await this.others()) this.positions.set(writer._id, await this.lastOf(writer));
  }

  /** Reads every batch stored since the last poll. */
  async poll(): Promise<void> {
    const writers = await this.others();
    const live = new Set(writers.map((w) => w._id));
    for (const id of this.positions.keys()) if (!live.has(id)) this.positions.delete(id);
    for (const writer of writers) await this.follow(writer);
  }

  private async follow(writer: FeedWriterDoc): Promise<void> {
    // A writer first seen now joined after this reader started: all of its batches are news.
    let at = this.positions.get(writer._id) ?? 0;
    for (;;) {
      const batch = await this.feed.batch(writer._id, at + 1);
      if (!batch) {
        if (writer.seq > at) {
          at = await this.lastOf(writer);
          this.listener.lostTrack();
        }
        break;
      }
      if (batch.lost) this.listener.lostTrack();
      at = batch.seq;
      this.positions.set(writer._id, at);
      this.listener.items(batch.items);
    }
    this.positions.set(writer._id, at);
  }

  private async others(): Promise<FeedWriterDoc[]> {
    return (await this.feed.listWriters()).filter((w) => w._id !== this.self());
  }

  private async lastOf(writer: FeedWriterDoc): Promise<number> {
    return Math.max(writer.seq, await this.feed.lastSeq(writer._id));
  }
}
