import yauzl, { type Entry, type ZipFile } from 'yauzl';

/**
 * Bounds on reading a plugin jar (a zip). Entry headers are checked before anything is inflated,
 * and only the one wanted entry is inflated (cut at its limit whatever its header claims; yauzl's
 * `validateEntrySizes` also catches a header that lies), so a zip bomb costs no memory.
 */
export const zipLimits = {
  maxEntries: 65_536,
  /** Sum of the entries' declared uncompressed sizes. */
  maxTotalUncompressedBytes: 512 * 1024 * 1024,
  /** Largest uncompressed/compressed ratio of one entry, for entries above `ratioCheckAboveBytes`. */
  maxRatio: 100,
  ratioCheckAboveBytes: 1024 * 1024,
  /** Largest entry read as text. */
  maxEntryBytes: 1024 * 1024,
} as const;

/** Makes the caller's own error for a jar it refuses; the message is safe to show. */
export type Refuse = (message: string) => Error;

function openZip(path: string, refuse: Refuse): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true }, (err, zip) => {
      if (err) reject(refuse(`not a readable jar (${err.message})`));
      else resolve(zip);
    });
  });
}

/** Walks every entry header, enforcing the bounds; returns the root-level entries among `wanted`. */
function scanEntries(zip: ZipFile, wanted: readonly string[], refuse: Refuse): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const found = new Map<string, Entry>();
    let count = 0;
    let total = 0;
    const fail = (message: string) => {
      zip.removeAllListeners('entry');
      reject(refuse(message));
    };
    zip.on('entry', (entry: Entry) => {
      if (++count > zipLimits.maxEntries) return fail(`the jar has more than ${zipLimits.maxEntries} entries`);
      total += entry.uncompressedSize;
      if (total > zipLimits.maxTotalUncompressedBytes) return fail(`the jar would inflate to more than ${zipLimits.maxTotalUncompressedBytes} bytes`);
      if (entry.uncompressedSize > zipLimits.ratioCheckAboveBytes && entry.uncompressedSize > zipLimits.maxRatio * Math.max(1, entry.compressedSize)) {
        return fail(`${entry.fileName} inflates more than ${zipLimits.maxRatio} times (a zip bomb?)`);
      }
      if (wanted.includes(entry.fileName)) found.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(found));
    zip.once('error', (err: Error) => fail(`broken jar (${err.message})`));
    zip.readEntry();
  });
}

function readEntryText(zip: ZipFile, entry: Entry, refuse: Refuse): Promise<string> {
  const limit = zipLimits.maxEntryBytes;
  if (entry.uncompressedSize > limit) return Promise.reject(refuse(`${entry.fileName} is larger than ${limit} bytes`));
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(refuse(`cannot read ${entry.fileName} (${err.message})`));
      const chunks: Buffer[] = [];
      let size = 0;
      let refused: Error | undefined;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) return stream.destroy((refused = refuse(`${entry.fileName} is larger than ${limit} bytes`)));
        chunks.push(chunk);
      });
      stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      stream.once('error', (e: Error) => reject(e === refused ? e : refuse(`cannot read ${entry.fileName} (${e.message})`)));
    });
  });
}

/**
 * The first of `candidates` (root-level entry names, in order of preference) that the jar holds,
 * with its text, read within `zipLimits`; undefined when it holds none. Errors come from `refuse`.
 */
export async function readFirstEntry(path: string, candidates: readonly string[], refuse: Refuse): Promise<{ name: string; text: string } | undefined> {
  const zip = await openZip(path, refuse);
  try {
    const found = await scanEntries(zip, candidates, refuse);
    const name = candidates.find((n) => found.has(n));
    return name === undefined ? undefined : { name, text: await readEntryText(zip, found.get(name)!, refuse) };
  } finally {
    zip.close();
  }
}
