import type { ChangeFeedStore, FeedWriterDoc } from '../../store/change-feed.js';

/** What the reader hands on: one batch's items, in order, or word that some were missed. */
export interface FeedListener {
  items(items: unknown[]): void;
  /** Batches were missed (trimmed before they were read, or dropped by their writer). */
  lostTrack(): void;
}

/**
 * Follows every other writer of the store's change feed: for each, the last batch number read,
 * and at each poll the batches its record says it stored since, looked up by id. A writer stores
 * its batches one after another and advances its record after each, so none is skipped, and a
 * writer with nothing new (or a dead one, listed until the retention passes) costs no lookup. A
 * batch behind the record that is gone was trimmed unread: the listener is told it lost track.
 */
export class FeedReader {
  private readonly positions = new Map<string, number>();

  constructor(private readonly feed: ChangeFeedStore, private readonly self: () => string, private readonly listener: FeedListener) {}

  /** Begins after what every writer has stored so far: what came before is in the store's records already. */
  async start(): Promise<void> {
    for (const writer of await this.others()) this.positions.set(writer._id, writer.seq);
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
    while (at < writer.seq) {
      const batch = await this.feed.batch(writer._id, at + 1);
      if (!batch) {
        at = writer.seq;
        this.listener.lostTrack();
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
}
