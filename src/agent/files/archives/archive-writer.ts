import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';
import type { ArchiveFormat } from '../../../shared/archive-format.js';
import { locateResolved, openRegularFile } from '../beneath.js';
import type { ArchiveSource } from './archive-sources.js';

/** A source file opened again by the walk at the time it is written, with its size then. */
async function openSource(root: string, source: ArchiveSource) {
  const place = await locateResolved(root, source.resolved);
  try {
    const handle = await openRegularFile(place);
    const size = (await handle.stat()).size;
    // Exactly the size taken now: a file growing meanwhile is cut there, one shrinking fails the archive.
    return { size, stream: handle.createReadStream({ start: 0, end: Math.max(size - 1, 0), autoClose: true }), empty: size === 0, handle };
  } finally {
    await place.close();
  }
}

function zipStream(root: string, sources: readonly ArchiveSource[]): Readable {
  const zip = new yazl.ZipFile();
  for (const source of sources) {
    const options = { mtime: source.mtime, mode: source.mode | (source.kind === 'directory' ? 0o040000 : 0o100000) };
    if (source.kind === 'directory') zip.addEmptyDirectory(source.name, options);
    else {
      zip.addReadStreamLazy(source.name, options, (done) => {
        openSource(root, source).then(async ({ stream, empty, handle }) => {
          if (!empty) return done(null, stream);
          stream.destroy();
          await handle.close().catch(() => undefined);
          done(null, Readable.from([]));
        }, (e: unknown) => done(e instanceof Error ? e : new Error(String(e)), Readable.from([])));
      });
    }
  }
  zip.end();
  zip.on('error', (e: Error) => (zip.outputStream as Readable).destroy(e));
  return zip.outputStream as Readable;
}

function tarStream(root: string, sources: readonly ArchiveSource[]): Readable {
  const pack = tar.pack();
  const fill = async () => {
    for (const source of sources) {
      if (source.kind === 'directory') {
        pack.entry({ name: source.name, type: 'directory', mode: source.mode, mtime: source.mtime });
        continue;
      }
      const { size, stream, handle } = await openSource(root, source);
      try {
        await new Promise<void>((resolve, reject) => {
          const entry = pack.entry({ name: source.name, type: 'file', size, mode: source.mode, mtime: source.mtime }, (err) => (err ? reject(err) : resolve()));
          stream.on('error', reject);
          if (size === 0) {
            stream.destroy();
            (entry as NodeJS.WritableStream).end();
          } else stream.pipe(entry);
        });
      } finally {
        await handle.close().catch(() => undefined);
      }
    }
    pack.finalize();
  };
  void fill().catch((e: unknown) => pack.destroy(e instanceof Error ? e : new Error(String(e))));
  return Readable.from(pack as AsyncIterable<Buffer>);
}

/**
 * The archive of `sources` as a stream, each file read as the stream is consumed (one open at a
 * time), so an archive of any size is never held whole.
 */
export function archiveStream(root: string, format: Exclude<ArchiveFormat, 'tar.zst'>, sources: readonly ArchiveSource[]): Readable {
  if (format === 'zip') return zipStream(root, sources);
  const plain = tarStream(root, sources);
  if (format === 'tar') return plain;
  const gzip = createGzip();
  plain.on('error', (e) => gzip.destroy(e));
  return plain.pipe(gzip);
}
