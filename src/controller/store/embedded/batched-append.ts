import { open, type FileHandle } from 'node:fs/promises';
import nedbModel from '@seald-io/nedb/lib/model.js';

/** Writes text at the end of the file; the default keeps one handle open (see BatchedAppend). */
export interface AppendSink {
  append(text: string): Promise<void>;
  /** Lets go of the file (before nedb replaces it by compacting); the next append opens it again. */
  release(): Promise<void>;
}

/** The parts of a nedb datastore that writing goes through (its typings leave them out). */
export interface NedbWriting {
  executor: { pushAsync<R>(task: () => Promise<R>, forceQueuing?: boolean): Promise<R> };
  persistence: {
    filename: string;
    modes: { fileMode: number };
    persistNewStateAsync(docs: unknown[]): Promise<void>;
    persistCachedDatabaseAsync(): Promise<void>;
  };
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Appends a nedb datastore's writes in batches. nedb appends each write on its own (open, write,
 * close) and holds the collection's one queue until that is on disk, so with thousands of Agents
 * reporting, every read and write of the servers waited behind a line of small file writes (a
 * fifth of the Controller's time went to opening and closing the file). Here a write's lines join
 * a batch and the queue moves on; the writes whose lines are waiting go to disk together, one
 * append through one open handle. Callers are still answered only once their lines are on disk
 * (`write`), and lines reach the file in the order nedb applied the writes.
 */
export class BatchedAppend {
  private queued: string[] = [];
  private waiters: Waiter[] = [];
  private writing?: Promise<void>;
  /** The append of the write the queue is running now (each nedb write persists once). */
  private current?: Promise<void>;

  private constructor(private readonly db: NedbWriting, private readonly sink: AppendSink) {}

  /** Takes over the datastore's appends and makes its compaction wait for them (call once it is loaded). */
  static install(db: NedbWriting, sink: AppendSink = fileSink(db.persistence.filename, db.persistence.modes.fileMode)): BatchedAppend {
    const appends = new BatchedAppend(db, sink);
    const { persistence } = db;
    const compact = persistence.persistCachedDatabaseAsync.bind(persistence);
    persistence.persistNewStateAsync = (docs) => {
      const text = docs.map((doc) => `${nedbModel.serialize(doc)}\n`).join('');
      if (text === '') return Promise.resolve();
      const appended = appends.append(text);
      // Awaited by the write that made it (`write`); index lines at open are awaited through `drain`.
      appended.catch(() => undefined);
      appends.current = appended;
      return Promise.resolve();
    };
    // Compacting replaces the file: what is queued goes first, and the open handle must not outlive the old file.
    persistence.persistCachedDatabaseAsync = async () => {
      await appends.drain();
      await sink.release();
      await compact();
    };
    return appends;
  }

  /**
   * Runs one of nedb's own write steps (`_insertAsync`, `_updateAsync`, `_removeAsync`) in the
   * datastore's queue, as its public methods do, and answers once the lines it wrote are on disk.
   */
  async write<R>(step: () => Promise<R>): Promise<R> {
    const { result, appended } = await this.db.executor.pushAsync(async () => {
      this.current = undefined;
      const result = await step();
      return { result, appended: this.appendedByStep() };
    });
    await appended;
    return result;
  }

  /** Read through a call: the compiler would take `current` for the undefined set before the step. */
  private appendedByStep(): Promise<void> | undefined {
    return this.current;
  }

  /** Settles once every line queued so far is on disk (or failed to get there). */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private append(text: string): Promise<void> {
    const appended = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.queued.push(text);
    this.writing ??= this.flush();
    return appended;
  }

  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const text = this.queued.join('');
      const waiters = this.waiters;
      this.queued = [];
      this.waiters = [];
      try {
        await this.sink.append(text);
        for (const waiter of waiters) waiter.resolve();
      } catch (err) {
        for (const waiter of waiters) waiter.reject(err);
        await this.sink.release().catch(() => undefined);
      }
    }
    this.writing = undefined;
  }
}

/** Appends through one handle, opened at the first append after a release. */
export function fileSink(filename: string, mode: number): AppendSink {
  let handle: Promise<FileHandle> | undefined;
  return {
    async append(text) {
      handle ??= open(filename, 'a', mode);
      await (await handle).appendFile(text, 'utf8');
    },
    async release() {
      const held = handle;
      handle = undefined;
      await (await held?.catch(() => undefined))?.close();
    },
  };
}
