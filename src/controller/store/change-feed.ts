import { isDuplicateKey, type Collection, type IndexSpec } from './collection.js';

/**
 * One append of one writer: the items it queued since its last, under the next number of its
 * own. A writer appends one batch at a time, so its batch n + 1 is stored only after its batch n
 * was: a reader that has read a writer's batch n waits for n + 1 and nothing else, and never skips
 * one that landed late (what a number shared by all writers, taken before the insert, would allow).
 */
export interface FeedBatchDoc {
  /** `<writer>:<seq>`: read by its id, the one lookup every MongoDB-compatible server indexes. */
  _id: string;
  writer: string;
  seq: number;
  /** When it was written (writer's clock); batches older than the feed's retention are trimmed. */
  at: string;
  items: unknown[];
  /** The writer dropped items before this batch (it could not write them in time): readers lost track. */
  lost?: boolean;
}

/** A writer of the feed, one per Controller process: where readers look for its batches. */
export interface FeedWriterDoc {
  _id: string;
  startedAt: string;
  /** Renewed while the writer lives; a writer not seen for the retention is removed with its batches. */
  seenAt: string;
  /** Its last batch stored when `seenAt` was renewed: a reader behind it that finds its next batch gone lost track. */
  seq: number;
}

export const feedBatchIndexes: IndexSpec[] = [{ field: 'writer' }, { field: 'at' }];

const batchId = (writer: string, seq: number) => `${writer}:${seq}`;

/**
 * A change feed kept in the store for several Controllers on one database (MongoDB or FerretDB,
 * which has no change streams): each writer appends numbered batches, each reader follows every
 * writer by looking up its next batch by id. Plain documents and lookups by `_id`, so it behaves
 * the same on both servers; what a batch holds is the caller's.
 */
export class ChangeFeedStore {
  constructor(private readonly batches: Collection<FeedBatchDoc>, private readonly writers: Collection<FeedWriterDoc>) {}

  async join(writer: string, at: string): Promise<void> {
    await this.writers.insert({ _id: writer, startedAt: at, seenAt: at, seq: 0 });
  }

  /** False when the writer is no longer listed (trimmed while it could not renew): readers have let it go. */
  async renew(writer: string, at: string, seq: number): Promise<boolean> {
    return (await this.writers.update({ _id: writer }, { seenAt: at, seq })) > 0;
  }

  /** Stores a batch; one already stored under its number (a retry after a lost answer) counts as written. */
  async write(batch: Omit<FeedBatchDoc, '_id'>): Promise<void> {
    try {
      await this.batches.insert({ _id: batchId(batch.writer, batch.seq), ...batch });
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
    }
  }

  batch(writer: string, seq: number): Promise<FeedBatchDoc | null> {
    return this.batches.findById(batchId(writer, seq));
  }

  listWriters(): Promise<FeedWriterDoc[]> {
    return this.writers.find({});
  }

  /** The writer's last stored batch number (0 when none is kept): where a reader that starts now begins. */
  async lastSeq(writer: string): Promise<number> {
    const found = await this.batches.find({ writer }, { sort: { seq: -1 }, limit: 1 });
    return found.at(0)?.seq ?? 0;
  }

  /** Removes batches written before `before`, and writers not seen since. */
  async trim(before: string): Promise<void> {
    const gone = await this.writers.find({ seenAt: { $lt: before } });
    for (const writer of gone) await this.writers.delete({ _id: writer._id });
    await this.batches.delete({ at: { $lt: before } });
  }
}
