import type { Readable } from 'node:stream';
import nedbModel from '@seald-io/nedb/lib/model.js';
import { fillIndex } from './bulk-index.js';

interface RawIndex { fieldName?: string | null; unique?: boolean; sparse?: boolean }
interface Treated { data: Record<string, unknown>[]; indexes: Record<string, RawIndex> }
type FilledIndex = Parameters<typeof fillIndex>[0];

/** The parts of nedb's Persistence that loading goes through (its typings leave them out). */
interface LoadingPersistence {
  corruptAlertThreshold: number;
  treatRawStreamAsync(stream: Readable): Promise<Treated>;
  persistCachedDatabaseAsync(): Promise<void>;
}

/**
 * Loads a nedb datastore as `loadDatabaseAsync` does, minus two costs that made a store of 100,000
 * servers take 10 s to open: nedb parses every line through a JSON reviver with a promise per line
 * (the reviver only matters on lines holding `$$date`, which keep it), and writes the whole file
 * back once loaded. The file is left as it is: the hourly and the closing compactions rewrite it.
 * nedb's rules stay: the last line of an _id wins, `$$deleted` removes, index lines declare
 * indexes, and more corrupt lines than its threshold refuse the load.
 */
export async function loadQuickly(db: { persistence: unknown; loadDatabaseAsync(): Promise<void> }): Promise<void> {
  const persistence = db.persistence as LoadingPersistence;
  const indexed = db as unknown as { indexes: Record<string, FilledIndex>; _resetIndexes?(docs?: Record<string, unknown>[]): void };
  persistence.treatRawStreamAsync = (stream) => treatLines(stream, persistence.corruptAlertThreshold);
  persistence.persistCachedDatabaseAsync = async () => undefined;
  // The loaded documents go into each index in one pass (see fillIndex); emptying them stays nedb's.
  indexed._resetIndexes = (docs) => {
    for (const index of Object.values(indexed.indexes)) {
      if (docs) fillIndex(index, docs);
      else index.reset();
    }
  };
  try {
    await db.loadDatabaseAsync();
  } finally {
    // Back to nedb's own methods (on its prototype) for compactions.
    delete (persistence as Partial<LoadingPersistence>).treatRawStreamAsync;
    delete (persistence as Partial<LoadingPersistence>).persistCachedDatabaseAsync;
    delete indexed._resetIndexes;
  }
}

const parse = (line: string): Record<string, unknown> =>
  (line.includes('"$$date"') ? nedbModel.deserialize(line) : JSON.parse(line)) as Record<string, unknown>;

/**
 * Calls `each` with every line of a text stream, in order: split here per chunk rather than through
 * readline, whose promise per line cost ≈ 0.1 s on 100,000 lines. A `\r` before a `\n` is dropped.
 */
async function eachLine(stream: Readable, each: (line: string) => void): Promise<void> {
  let rest = '';
  const take = (line: string) => each(line.endsWith('\r') ? line.slice(0, -1) : line);
  // Decoded by the stream, so a character split between two chunks arrives whole.
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    // `rest` holds no newline: a line longer than a chunk is not scanned again at every chunk.
    for (let end = text.indexOf('\n', rest.length); end >= 0; end = text.indexOf('\n', start)) {
      take(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
  }
  take(rest);
}

async function treatLines(stream: Readable, corruptAlertThreshold: number): Promise<Treated> {
  const byId = new Map<string, Record<string, unknown>>();
  const indexes: Record<string, RawIndex> = {};
  let lines = 0;
  let corrupt = 0;
  await eachLine(stream, (line) => {
    if (line === '') return;
    lines += 1;
    let doc: Record<string, unknown> | null;
    try {
      doc = parse(line);
    } catch {
      doc = null;
    }
    if (doc === null || typeof doc !== 'object') {
      corrupt += 1;
      return;
    }
    const created = doc.$$indexCreated as RawIndex | undefined;
    if (doc._id) {
      if (doc.$$deleted === true) byId.delete(doc._id as string);
      else byId.set(doc._id as string, doc);
    } else if (created && created.fieldName != null) indexes[created.fieldName] = created;
    else if (typeof doc.$$indexRemoved === 'string') delete indexes[doc.$$indexRemoved];
  });
  if (lines > 0 && corrupt / lines > corruptAlertThreshold) {
    throw new Error(`${Math.floor((100 * corrupt) / lines)}% of the data file is corrupt, more than given corruptAlertThreshold (${Math.floor(100 * corruptAlertThreshold)}%). Cautiously refusing to start NeDB to prevent dataloss.`);
  }
  return { data: [...byId.values()], indexes };
}
