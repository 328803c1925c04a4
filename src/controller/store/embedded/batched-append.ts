import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import nedbModel from '@seald-io/nedb/lib/model.js';
import { asStoreError } from '../../core/store-full.js';

/** Writes text at the end of the file; the default keeps one handle open (see BatchedAppend). */
export interface AppendSink {
  /**
   * Resolves once the text is durable. On a failure the file must be as it was before this call
   * (a partial line left there would join the next write's line, and corrupt both).
   */
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
  _addToIndexes(doc: unknown): void;
  _removeFromIndexes(doc: unknown): void;
  _updateIndexes(oldDoc: unknown, newDoc?: unknown): void;
}

/** What a write did, told to whoever keeps the store's health (every append's outcome). */
export type AppendOutcome = { ok: true } | { ok: false; error: unknown };

interface Entry {
  text: string;
  /** Puts memory back as it was before the write, in reverse order of what it did. */
  undo: (() => void)[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

type Modification = { oldDoc: unknown; newDoc: unknown };

/**
 * Appends a nedb datastore's writes in batches, and keeps memory to what is on disk.
 *
 * nedb appends each write on its own (open, write, close) and holds the collection's one queue
 * until that is on disk, so with thousands of Agents reporting, every read and write of the
 * servers waited behind a line of small file writes. Here a write's lines join a batch and the
 * queue moves on; the writes whose lines are waiting go to disk together, one append and one
 * fdatasync through one open handle. Callers are answered only once their lines are durable
 * (`write`), and lines reach the file in the order nedb applied the writes.
 *
 * nedb changes its memory before it persists, and the queue moving on lets later writes build on
 * a change not yet on disk. So each write records how to undo its change in memory; when an
 * append fails, the sink has cut the file back, every write not yet durable (the failed batch and
 * those queued behind it, which may depend on it) is undone in memory, newest first, inside the
 * queue, and only then are their callers refused. A read that runs while a failing append is in
 * flight can see a write that is then refused; no caller is ever told a write succeeded that is
 * not on disk, and after a refusal the write is visible nowhere.
 */
export class BatchedAppend {
  private queued: Entry[] = [];
  private writing?: Promise<void>;
  /** The append of the write the queue is running now (each nedb write persists once). */
  private current?: Promise<void>;
  /** While a write step runs: how to undo what it has changed in memory so far. */
  private recording?: (() => void)[];
  /** Set from a failed append until memory is undone: writes made meanwhile are refused with it. */
  private failure?: { error: unknown; entries: Entry[] };
  private unowned: Promise<void>[] = [];
  /** A compaction holds the queue while it waits for the appends (no write step can be running). */
  private compacting = false;

  private constructor(private readonly db: NedbWriting, private readonly sink: AppendSink, private readonly onOutcome: (outcome: AppendOutcome) => void) {}

  /** Takes over the datastore's appends and makes its compaction wait for them (call once it is loaded). */
  static install(
    db: NedbWriting,
    sink: AppendSink = fileSink(db.persistence.filename, db.persistence.modes.fileMode),
    onOutcome: (outcome: AppendOutcome) => void = () => undefined,
  ): BatchedAppend {
    const appends = new BatchedAppend(db, sink, onOutcome);
    appends.recordUndo();
    const { persistence } = db;
    const compact = persistence.persistCachedDatabaseAsync.bind(persistence);
    persistence.persistNewStateAsync = (docs) => {
      const text = docs.map((doc) => `${nedbModel.serialize(doc)}\n`).join('');
      if (text === '') return Promise.resolve();
      const undo = appends.recording;
      if (undo) appends.recording = [];
      const appended = appends.append(text, undo ?? []);
      appended.catch(() => undefined);
      // Awaited by the write that made it (`write`), or, for index lines at open, by `settle`:
      // never inside the queue, where a refusal's undo must be able to run.
      if (undo) appends.current = appended;
      else appends.unowned.push(appended);
      return Promise.resolve();
    };
    // Compacting replaces the file: what is queued goes first, and the open handle must not outlive the old file.
    persistence.persistCachedDatabaseAsync = async () => {
      appends.compacting = true;
      try {
        await appends.drain();
      } finally {
        appends.compacting = false;
      }
      await sink.release();
      await compact();
    };
    return appends;
  }

  /** Wraps nedb's three ways of changing its indexes (all of memory) so a write step's change can be undone. */
  private recordUndo(): void {
    const db = this.db;
    const add = db._addToIndexes.bind(db);
    const remove = db._removeFromIndexes.bind(db);
    const update = db._updateIndexes.bind(db);
    db._addToIndexes = (doc) => {
      add(doc);
      this.recording?.push(() => remove(doc));
    };
    db._removeFromIndexes = (doc) => {
      remove(doc);
      this.recording?.push(() => add(doc));
    };
    db._updateIndexes = (oldDoc, newDoc) => {
      update(oldDoc, newDoc);
      if (Array.isArray(oldDoc)) {
        const back = (oldDoc as Modification[]).map((m) => ({ oldDoc: m.newDoc, newDoc: m.oldDoc }));
        this.recording?.push(() => update(back));
      } else this.recording?.push(() => update(newDoc, oldDoc));
    };
  }

  /**
   * Runs one of nedb's own write steps (`_insertAsync`, `_updateAsync`, `_removeAsync`) in the
   * datastore's queue, as its public methods do, and answers once the lines it wrote are durable.
   * A refused write rejects with the append's error (a StoreFullError for a full disk), its change
   * already undone in memory.
   */
  async write<R>(step: () => Promise<R>): Promise<R> {
    const { result, appended } = await this.db.executor.pushAsync(async () => {
      this.current = undefined;
      this.recording = [];
      try {
        const result = await step();
        return { result, appended: this.appendedByStep() };
      } finally {
        this.recording = undefined;
      }
    });
    await appended;
    return result;
  }

  /** Read through a call: the compiler would take `current` for the undefined set before the step. */
  private appendedByStep(): Promise<void> | undefined {
    return this.current;
  }

  /** Settles once every line queued so far is durable (or refused, and undone). */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Resolves once the lines nedb wrote on its own (index lines) are durable; rejects if one was refused. */
  async settle(): Promise<void> {
    const appended = this.unowned;
    this.unowned = [];
    await Promise.all(appended);
  }

  private append(text: string, undo: (() => void)[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = { text, undo, resolve, reject };
      if (this.failure) this.failure.entries.push(entry);
      else {
        this.queued.push(entry);
        this.writing ??= this.flush();
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      try {
        await this.sink.append(batch.map((e) => e.text).join(''));
      } catch (err) {
        await this.refuse(batch, asStoreError(err));
        continue;
      }
      for (const entry of batch) entry.resolve();
      this.onOutcome({ ok: true });
    }
    this.writing = undefined;
  }

  /**
   * Undoes in memory every write not on disk, in the datastore's queue so no write step runs
   * between the undo and the refusal; writes that reach the queue before the undo join the refused.
   * While a compaction holds the queue, no step can run, and the undo is done at once.
   */
  private async refuse(batch: Entry[], error: unknown): Promise<void> {
    const failure = { error, entries: [...batch, ...this.queued] };
    this.queued = [];
    this.failure = failure;
    this.onOutcome({ ok: false, error });
    const undo = () => {
      this.failure = undefined;
      for (const entry of [...failure.entries].reverse()) for (const step of [...entry.undo].reverse()) step();
    };
    // A compaction waiting in the queue for this flush would never let a queued undo run.
    if (this.compacting) undo();
    else await this.db.executor.pushAsync(async () => undo(), true);
    for (const entry of failure.entries) entry.reject(error);
  }
}

/**
 * Appends through one handle, opened at the first append after a release, and fdatasyncs each
 * append before it resolves. It keeps the size the file had after its last durable append: a
 * failed write or sync cuts the file back to it, and if even that fails, the next append cuts
 * first, so a torn line never gets a line after it. `write` is the disk's own append (a test's
 * can fail part way).
 */
export function fileSink(filename: string, mode: number, write: (handle: FileHandle, bytes: Buffer) => Promise<void> = (handle, bytes) => handle.appendFile(bytes)): AppendSink {
  let opened: Promise<{ handle: FileHandle; size: number }> | undefined;
  let torn = false;
  const openFile = async () => {
    const handle = await open(filename, 'a', mode);
    try {
      const { size } = await handle.stat();
      // The file may be new: its name is durable only once its directory is synced.
      await syncDirectory(dirname(filename));
      return { handle, size };
    } catch (e) {
      await handle.close();
      throw e;
    }
  };
  return {
    async append(text) {
      opened ??= openFile();
      let file;
      try {
        file = await opened;
      } catch (e) {
        opened = undefined;
        throw e;
      }
      if (torn) {
        await file.handle.truncate(file.size);
        torn = false;
      }
      try {
        const bytes = Buffer.from(text, 'utf8');
        await write(file.handle, bytes);
        await file.handle.datasync();
        file.size += bytes.length;
      } catch (e) {
        torn = true;
        await file.handle.truncate(file.size).then(() => (torn = false), () => undefined);
        throw e;
      }
    },
    async release() {
      const held = opened;
      opened = undefined;
      await (await held?.catch(() => undefined))?.handle.close();
    },
  };
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
