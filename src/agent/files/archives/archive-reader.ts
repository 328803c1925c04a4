import { once } from 'node:events';
import { closeSync, createReadStream, open as openFd } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';
import tar from 'tar-stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { ArchiveFormat } from '../../../shared/archive-format.js';
import { AgentError } from '../../errors.js';

/** What an entry is; links and special files are never extracted (see extract.ts). */
export type EntryKind = 'file' | 'directory' | 'link' | 'special';

export interface ArchiveEntry {
  name: string;
  kind: EntryKind;
  /** The size the archive declares; the extractor counts what really comes. */
  declaredBytes: number;
  /** Permission bits as the archive has them (0 when it has none). */
  mode: number;
  /** A file entry's bytes; read once. */
  content(): Promise<AsyncIterable<Buffer>>;
}

export interface ArchiveVisitor {
  /** Called with every entry before any is visited, when the format lists them up front (zip). */
  listed?(entries: readonly ArchiveEntry[]): void;
  visit(entry: ArchiveEntry): Promise<void>;
}

const broken = (format: ArchiveFormat, e: unknown) => (e instanceof AgentError ? e : new AgentError('INVALID_ARCHIVE', `not a readable ${format} archive (${e instanceof Error ? e.message : String(e)}).`));

/** Unix file type bits of a mode, and the kind each stands for. */
const typeBits = 0o170000;
const kindOfType: Record<number, EntryKind> = { 0: 'file', 0o100000: 'file', 0o040000: 'directory', 0o120000: 'link' };

function zipEntry(zip: ZipFile, entry: Entry): ArchiveEntry {
  // Only archives made on Unix (the high byte of "version made by" is 3) carry a Unix mode.
  const unixMode = entry.versionMadeBy >> 8 === 3 ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
  const kind = entry.fileName.endsWith('/') ? 'directory' : kindOfType[unixMode & typeBits] ?? 'special';
  return {
    name: entry.fileName, kind, declaredBytes: entry.uncompressedSize, mode: unixMode & 0o777,
    content: () => new Promise((resolve, reject) => zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)))),
  };
}

/** Reads the central directory: every entry's header, nothing inflated. yauzl refuses `..`, absolute names and backslashes itself, naming the entry. */
function listZip(zip: ZipFile): Promise<ArchiveEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: ArchiveEntry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(zipEntry(zip, entry));
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (err: Error) => reject(new AgentError('INVALID_PATH', `entry refused: ${err.message}.`)));
    zip.readEntry();
  });
}

async function readZip(handle: FileHandle, visitor: ArchiveVisitor): Promise<void> {
  // yauzl closes the descriptor it reads when done: it gets its own, opened again from the held one (the same file, no path walked).
  // A plain fd, not a FileHandle: a FileHandle would close it again when collected.
  const own = await promisify(openFd)(`/proc/self/fd/${handle.fd}`, 'r');
  const zip = await yauzl.fromFdPromise(own, { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: true, strictFileNames: false })
    .catch((e: unknown) => {
      closeSync(own);
      throw broken('zip', e);
    });
  try {
    const entries = await listZip(zip);
    visitor.listed?.(entries);
    for (const entry of entries) await visitor.visit(entry);
  } finally {
    zip.close();
  }
}

/**
 * zstd through fzstd, fed in small slices and drained by the reader: one slice of RLE blocks
 * inflates to a few MiB at most, so a zstd bomb costs no more memory than that before the
 * extractor's count stops it.
 */
async function* zstdDecoded(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const out: Buffer[] = [];
  const decoder = new Decompress((data) => { out.push(Buffer.from(data)); });
  for await (const chunk of source) {
    for (let i = 0; i < chunk.length; i += 256) {
      decoder.push(chunk.subarray(i, i + 256));
      while (out.length > 0) yield out.shift()!;
    }
  }
  decoder.push(new Uint8Array(0), true);
  while (out.length > 0) yield out.shift()!;
}

const tarKinds: Partial<Record<string, EntryKind>> = { file: 'file', 'contiguous-file': 'file', directory: 'directory', symlink: 'link', link: 'link' };

async function readTar(handle: FileHandle, format: ArchiveFormat, visitor: ArchiveVisitor): Promise<void> {
  const raw = createReadStream('', { fd: handle, autoClose: false, start: 0 });
  const decoded: AsyncIterable<Buffer> = format === 'tar.gz' ? raw.pipe(createGunzip()) : format === 'tar.zst' ? zstdDecoded(raw) : raw;
  const extract = tar.extract();
  const pump = async () => {
    for await (const chunk of decoded) {
      if (!extract.write(chunk)) await once(extract as unknown as NodeJS.EventEmitter, 'drain');
    }
    (extract as NodeJS.WritableStream).end();
  };
  void pump().catch((e: unknown) => extract.destroy(e instanceof Error ? e : new Error(String(e))));
  try {
    for await (const stream of extract) {
      const { header } = stream;
      await visitor.visit({
        name: header.name, kind: tarKinds[header.type] ?? 'special', declaredBytes: header.size, mode: header.mode & 0o777,
        content: () => Promise.resolve(stream as AsyncIterable<Buffer>),
      });
      stream.resume();
    }
  } catch (e) {
    throw broken(format, e);
  } finally {
    extract.destroy();
    raw.destroy();
  }
}

/** Visits every entry of the archive open at `handle`, one after another; a broken archive is INVALID_ARCHIVE. */
export async function readArchive(handle: FileHandle, format: ArchiveFormat, visitor: ArchiveVisitor): Promise<void> {
  if (format === 'zip') await readZip(handle, visitor);
  else await readTar(handle, format, visitor);
}
