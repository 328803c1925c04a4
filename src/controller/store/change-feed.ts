import { isDuplicateKey, type Collection, type IndexSpec } from './collection.js';

/**
 * One append of one writer: the items it queued since its last, under the next number of its
 * own. A writer appends one batch at a time, so its batch n + 1 is stored only after its batch n
 * was: a reader that has read a writer's batch n waits for n + 1 and nothing else, and never skips
 * one that landed late (what a number shared by all writers, taken before the insert, would allow).
 */
export interface FeedBatchDoc {
  /** `<writer>:<seq>`: read by its id, the one lookup MongoDB-compatible servers push down (FerretDB's SQLite backend still reads every row for it). */
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
  /**
   * Its last batch stored, advanced after each batch (and at each renewal): readers look up a
   * writer's batches only up to it, and one behind it that finds its next batch gone lost track.
   */
  seq: number;
}

export const feedBatchIndexes: IndexSpec[] = [{ field: 'writer' }, { field: 'at' }];

const batchId = (writer: string, seq: number) => `${writer}:${seq}`;

/**
 * A change feed kept in the store for several Controllers on one database (MongoDB or FerretDB,
 * which has no change streams): each writer appends numbered batches and advances its record,
 * each reader lists the writers' records and looks up by id the batches a record says are new.
 * Plain documents, so it behaves the same on both servers; what a batch holds is the caller's.
 * FerretDB's SQLite backend reads a whole collection even for a lookup by id (its `_id` index is
 * not used), so readers never look for a batch that is not there yet, and batches are kept briefly.
 */
export class ChangeFeedStore {
  constructor(private readonly batches: Collection<FeedBatchDoc>, private readonly writers: Collection<FeedWriterDoc>) {}

  async join(writer: string, at: string): Promise<void> {
    await this.writers.insert({ _id: writer, startedAt: at, seenAt: at, seq: 0 });
  }

  /**
   * False when the writer is no longer listed (trimmed while it could not renew): readers have let it go.
   * Its record is advanced to `seq` as well, never moved back (a batch's own advance may have passed it meanwhile).
   */
  async renew(writer: string, at: string, seq: number): Promise<boolean> {
    if ((await this.writers.update({ _id: writer }, { seenAt: at })) === 0) return false;
    await this.advance(writer, seq);
    return true;
  }

  /** Says the writer stored batches up to `seq`: readers look them up from now on. A record further on already is left alone. */
  async advance(writer: string, seq: number): Promise<void> {
    await this.writers.update({ _id: writer, seq: { $lt: seq } }, { seq });
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

  /** Removes batches written before `before`, and writers not seen since. */
  async trim(before: string): Promise<void> {
    const gone = await this.writers.find({ seenAt: { $lt: before } });
    for (const writer of gone) await this.writers.delete({ _id: writer._id });
    await this.batches.delete({ at: { $lt: before } });
  }
}
