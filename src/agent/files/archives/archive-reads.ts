import type { Readable } from 'node:stream';
import type { FileChunk } from '../../../shared/link/messages.js';
import { maxChunkBytes } from '../../../shared/link/messages.js';

/** A zip download not asked for this long is given up. */
export const archiveReadIdleMs = 60_000;

interface Open {
  iterator: AsyncIterator<Buffer>;
  stream: Readable;
  /** Bytes taken from the stream but not sent yet (a piece past the last range's end). */
  held?: Buffer;
  offset: number;
  timer?: NodeJS.Timeout;
  /** Ranges of one stream are served one after another. */
  chain: Promise<unknown>;
}

/**
 * Zips made on the fly for downloads, read in ranges the Controller asks for as its client
 * reads: the zip is produced only as fast as it is taken, so a folder of any size costs a few
 * MiB on each side.
 */
export class ArchiveReads {
  private readonly open = new Map<string, Open>();

  constructor(private readonly idleMs = archiveReadIdleMs) {}

  /** Up to `maxBytes` of the stream `id` (made by `make` on the first ask), in chunks of at most 1 MiB; the last returned. */
  read(id: string, maxBytes: number, make: () => Promise<Readable>, part: (chunk: FileChunk) => void): Promise<FileChunk> {
    let current = this.open.get(id);
    const begin = current ? Promise.resolve() : make().then((stream) => {
      const created: Open = { stream, iterator: stream.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Buffer>, offset: 0, chain: Promise.resolve() };
      this.open.set(id, created);
      current = created;
    });
    const step = begin.then(() => current!.chain).then(() => this.take(id, current!, Math.max(1, maxBytes), part));
    void step.then(() => {
      if (current) current.chain = step.catch(() => undefined);
    }, () => this.discard(id));
    return step;
  }

  private async take(id: string, stream: Open, maxBytes: number, part: (chunk: FileChunk) => void): Promise<FileChunk> {
    this.touch(id, stream);
    let sent = 0;
    for (;;) {
      let piece = stream.held;
      stream.held = undefined;
      if (!piece) {
        const next = await stream.iterator.next();
        if (next.done) {
          this.discard(id);
          return { offset: stream.offset, data: Buffer.alloc(0), eof: true, totalBytes: 0 };
        }
        piece = next.value;
      }
      const room = Math.min(maxChunkBytes, maxBytes - sent);
      if (piece.length > room) stream.held = piece.subarray(room);
      const data = piece.subarray(0, room);
      const chunk: FileChunk = { offset: stream.offset, data, eof: false, totalBytes: 0 };
      stream.offset += data.length;
      sent += data.length;
      if (sent >= maxBytes) return chunk;
      part(chunk);
    }
  }

  /** Gives a stream up; unknown ids are ignored. */
  discard(id: string): void {
    const stream = this.open.get(id);
    if (!stream) return;
    this.open.delete(id);
    clearTimeout(stream.timer);
    stream.stream.destroy();
  }

  discardAll(): void {
    for (const id of [...this.open.keys()]) this.discard(id);
  }

  private touch(id: string, stream: Open): void {
    clearTimeout(stream.timer);
    stream.timer = setTimeout(() => this.discard(id), this.idleMs);
    stream.timer.unref();
  }
}
