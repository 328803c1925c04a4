import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FileEntry } from '../../../shared/link/messages.js';
import type { Range } from '../../services/files/file-transfer.js';

/** How much a read handle asks the Agent for at once: clients read 32–256 KiB at a time, in order. */
const readWindowBytes = 4 * 1024 * 1024;

/** An open directory: its entries, listed at OPENDIR and handed out by READDIR in batches. */
export class DirHandle {
  readonly kind = 'dir';
  constructor(readonly path: string, public pending: FileEntry[]) {}

  next(batch = 100): FileEntry[] {
    const out = this.pending.slice(0, batch);
    this.pending = this.pending.slice(batch);
    return out;
  }
}

/**
 * A file open for reading: a window of it held in memory, refilled from the Agent when a read
 * falls outside it, so sequential reads of any size cost one link request per 4 MiB.
 */
export class ReadHandle {
  readonly kind = 'read';
  private window = { offset: 0, data: Buffer.alloc(0) };
  private size = -1;
  /** Reads of one handle run one at a time: pipelined requests then share one fetch. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string, private readonly fetch: (offset: number, length: number) => Promise<Range>) {}

  /** The bytes at `offset` (at most `length`), or undefined at the end of the file. */
  read(offset: number, length: number): Promise<Buffer | undefined> {
    const result = this.turn.then(() => this.readNow(offset, length));
    this.turn = result.catch(() => undefined);
    return result;
  }

  private async readNow(offset: number, length: number): Promise<Buffer | undefined> {
    const { window } = this;
    if (offset < window.offset || offset >= window.offset + window.data.length) {
      if (this.size >= 0 && offset >= this.size) return undefined;
      const range = await this.fetch(offset, readWindowBytes);
      this.size = range.totalBytes;
      this.window = { offset, data: Buffer.concat(range.chunks.map((c) => c.data)) };
      if (this.window.data.length === 0) return undefined;
    }
    const start = offset - this.window.offset;
    return this.window.data.subarray(start, start + length);
  }
}

/** How far ahead of the file's end a write may arrive: clients pipeline writes, and split ones can come out of order. */
const maxWritesAheadBytes = 16 * 1024 * 1024;

/**
 * A file open for writing: an upload to the Agent fed in order. SFTP writes carry offsets; clients
 * send them in sequence, though a pipelining client's split writes may overtake each other, so a
 * write ahead of the end waits (up to 16 MiB) for the ones before it, unanswered until its turn
 * comes: a client sends more only as its writes are answered, so what waits stays within its
 * window however large the file. A write behind the end (a rewrite) or too far ahead is refused,
 * since the upload only appends. The file appears whole at CLOSE, as an upload through the API does.
 */
export class WriteHandle {
  readonly kind = 'write';
  readonly body = new PassThrough({ highWaterMark: 1024 * 1024 });
  written = 0;
  failure?: Error;
  readonly done: Promise<void>;
  private readonly ahead = new Map<number, { data: Buffer; taken(): void; failed(e: Error): void }>();
  private aheadBytes = 0;

  constructor(readonly path: string, upload: (body: PassThrough) => Promise<void>) {
    // A pipelining client has up to 64 writes waiting for the same drain.
    this.body.setMaxListeners(0);
    this.done = upload(this.body);
    this.done.catch((e: unknown) => {
      this.failure = e instanceof Error ? e : new Error(String(e));
      this.failAhead(this.failure);
    });
  }

  async write(offset: number, data: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (offset < this.written || offset + data.length > this.written + maxWritesAheadBytes || this.ahead.has(offset)) {
      throw new Error(`writes must come in order: the file is written up to ${this.written} bytes, a write at ${offset} cannot be taken (Cairn's SFTP writes a file from start to end)`);
    }
    if (offset > this.written) {
      this.aheadBytes += data.length;
      return new Promise((taken, failed) => this.ahead.set(offset, { data, taken, failed }));
    }
    let next: Buffer | undefined = data;
    let flowing = true;
    while (next) {
      this.written += next.length;
      flowing = this.body.write(next);
      const waiting = this.ahead.get(this.written);
      next = waiting?.data;
      if (waiting) {
        this.ahead.delete(this.written);
        this.aheadBytes -= waiting.data.length;
        waiting.taken();
      }
    }
    if (!flowing) await Promise.race([once(this.body, 'drain'), this.done]);
  }

  /** Resolves with the file's size once the Agent has it whole. */
  async close(): Promise<number> {
    if (this.ahead.size > 0) {
      const gap = new Error(`the file was closed with a gap: written up to ${this.written} bytes, and ${this.aheadBytes} bytes beyond`);
      this.abort();
      throw gap;
    }
    this.body.end();
    await this.done;
    return this.written;
  }

  /** The session ended before CLOSE: the Agent removes what it had written. */
  abort(): void {
    const error = new Error('the SFTP session ended before the file was closed');
    this.failAhead(error);
    this.body.destroy(error);
  }

  private failAhead(error: Error): void {
    for (const waiting of this.ahead.values()) waiting.failed(error);
    this.ahead.clear();
    this.aheadBytes = 0;
  }
}

export type Handle = DirHandle | ReadHandle | WriteHandle;

/** The parts of ssh2's server-side SFTP channel its types leave out. */
interface SftpChannel {
  outgoing: { id: number; state: string };
  _protocol: { exitStatus(channel: number, status: number): void };
  on(event: 'end', listener: () => void): unknown;
  end(): void;
}

/**
 * When the client ends the subsystem, answer with exit status 0 before closing: OpenSSH's `sftp`
 * exits 1 after a batch that all went well when the channel closes without one.
 */
export function exitCleanly(sftp: object): void {
  const channel = sftp as SftpChannel;
  channel.on('end', () => {
    if (channel.outgoing.state === 'open') channel._protocol.exitStatus(channel.outgoing.id, 0);
    channel.end();
  });
}
