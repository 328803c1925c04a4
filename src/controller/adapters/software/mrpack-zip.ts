import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/** A pack's index larger than this is not one. */
const maxIndexBytes = 16 * 2 ** 20;
const maxEntries = 100_000;
const symlinkMode = 0o120000;

/** A `.mrpack` that cannot be read as a zip of the format; the message is safe to show. */
export class MrpackRefused extends Error {
  override name = 'MrpackRefused';
}

/**
 * An opened `.mrpack` (a zip): its entries' headers walked once, its index read, and any entry
 * extracted on demand. yauzl refuses names with `..` or an absolute path and entries whose sizes
 * lie; a symbolic link is refused here. Close it when done.
 */
export class Mrpack {
  private constructor(private readonly zip: ZipFile, readonly entries: ReadonlyMap<string, Entry>) {}

  static async open(path: string): Promise<Mrpack> {
    const zip = await new Promise<ZipFile>((resolve, reject) => {
      yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true, decodeStrings: true }, (err, z) => {
        if (err) reject(new MrpackRefused(`the pack is not a readable zip (${err.message})`));
        else resolve(z);
      });
    });
    try {
      return new Mrpack(zip, await scan(zip));
    } catch (e) {
      zip.close();
      throw e;
    }
  }

  /** `modrinth.index.json`'s text. */
  async indexText(): Promise<string> {
    const entry = this.entries.get('modrinth.index.json');
    if (!entry) throw new MrpackRefused('the pack holds no modrinth.index.json');
    if (entry.uncompressedSize > maxIndexBytes) throw new MrpackRefused(`modrinth.index.json is larger than ${maxIndexBytes} bytes`);
    const chunks: Buffer[] = [];
    for await (const chunk of await this.stream(entry)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Writes an entry into `file`; answers its sha256 and size. */
  async extract(entry: Entry, file: string): Promise<{ sha256: string; size: number }> {
    const hash = createHash('sha256');
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(await this.stream(entry), counter, createWriteStream(file, { mode: 0o600 }));
    return { sha256: hash.digest('hex'), size };
  }

  close(): void {
    this.zip.close();
  }

  private stream(entry: Entry): Promise<Readable> {
    return new Promise((resolve, reject) => {
      this.zip.openReadStream(entry, (err, stream) => (err ? reject(new MrpackRefused(`cannot read ${entry.fileName} (${err.message})`)) : resolve(stream)));
    });
  }
}

function scan(zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, Entry>();
    const fail = (message: string) => {
      zip.removeAllListeners('entry');
      reject(new MrpackRefused(message));
    };
    zip.on('entry', (entry: Entry) => {
      if (entries.size >= maxEntries) return fail(`the pack has more than ${maxEntries} entries`);
      if (((entry.externalFileAttributes >>> 16) & 0o170000) === symlinkMode) return fail(`the pack's entry ${JSON.stringify(entry.fileName)} is a symbolic link`);
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (err: Error) => fail(`the pack is a broken zip (${err.message})`));
    zip.readEntry();
  });
}
