import type { Duplex } from 'node:stream';
import { maxChunkBytes } from '../../../shared/link/messages.js';

/**
 * The little protocol two Agents speak over their TLS connection. The puller asks for one file at
 * a time (`ask`: its length, then its path as UTF-8); the server answers frames of a kind byte
 * and a length: the file's bytes in pieces of at most 1 MiB, then its end with the sha256 of every
 * byte sent, or a failure with a message.
 */
export type Frame =
  | { kind: 'data'; data: Buffer }
  | { kind: 'end'; sha256: string }
  | { kind: 'failed'; message: string };

const kinds = { data: 1, end: 2, failed: 3 } as const;
/** A path or a message longer than this is not one this protocol sends. */
const maxTextBytes = 64 * 1024;

/** The connection ended or broke off mid-frame. */
export class BrokeOff extends Error {
  constructor(what: string) {
    super(`the connection ended before ${what}`);
    this.name = 'BrokeOff';
  }
}

/** The socket is paused while this much has arrived unread, so a slow consumer holds at most about this much. */
const highWaterBytes = 2 * 1024 * 1024;

/**
 * What arrives on a socket, taken a given number of bytes at a time. (A TLS socket's own `read(n)`
 * stops filling at its first high-water mark, whatever `n` asks for.)
 */
export class Incoming {
  private chunks: Buffer[] = [];
  private length = 0;
  private ended = false;
  private failure?: Error;
  private wake?: () => void;

  constructor(private readonly socket: Duplex) {
    socket.on('data', (data: Buffer) => {
      this.chunks.push(data);
      this.length += data.length;
      if (this.length >= highWaterBytes) socket.pause();
      this.notify();
    });
    socket.once('end', () => this.stop());
    socket.once('close', () => this.stop());
    socket.on('error', (e: Error) => this.stop(e));
  }

  /** Whether the peer ended the connection with nothing left unread. */
  get drained(): boolean {
    return this.ended && this.length === 0;
  }

  /** Exactly `n` bytes, waiting as needed; BrokeOff when the connection ends first. */
  async take(n: number, what: string): Promise<Buffer> {
    while (this.length < n) {
      if (this.ended) throw new BrokeOff(this.failure ? `${what} (${this.failure.message})` : what);
      this.socket.resume();
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    let out: Buffer;
    if (this.chunks[0].length >= n) {
      out = this.chunks[0].subarray(0, n);
      this.chunks[0] = this.chunks[0].subarray(n);
      if (this.chunks[0].length === 0) this.chunks.shift();
    } else {
      out = Buffer.allocUnsafe(n);
      for (let at = 0; at < n;) {
        const first = this.chunks[0];
        const part = Math.min(first.length, n - at);
        first.copy(out, at, 0, part);
        at += part;
        if (part === first.length) this.chunks.shift();
        else this.chunks[0] = first.subarray(part);
      }
    }
    this.length -= n;
    if (this.length < highWaterBytes) this.socket.resume();
    return out;
  }

  private stop(e?: Error): void {
    this.ended = true;
    this.failure ??= e;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** Writes, waiting while the socket's buffer is full; BrokeOff when it closes meanwhile. */
async function put(socket: Duplex, data: Buffer): Promise<void> {
  if (socket.write(data)) return;
  await new Promise<void>((resolve, reject) => {
    const drained = () => {
      socket.off('close', closed);
      resolve();
    };
    const closed = () => {
      socket.off('drain', drained);
      reject(new BrokeOff('the peer read what was sent'));
    };
    socket.once('drain', drained);
    socket.once('close', closed);
  });
}

const header = (kind: number, length: number) => {
  const b = Buffer.allocUnsafe(5);
  b.writeUInt8(kind, 0);
  b.writeUInt32BE(length, 1);
  return b;
};

export async function writeAsk(socket: Duplex, path: string): Promise<void> {
  const text = Buffer.from(path, 'utf8');
  const length = Buffer.allocUnsafe(4);
  length.writeUInt32BE(text.length, 0);
  await put(socket, Buffer.concat([length, text]));
}

/** The next path asked for, or undefined when the puller closed the connection cleanly. */
export async function readAsk(incoming: Incoming): Promise<string | undefined> {
  let length: Buffer;
  try {
    length = await incoming.take(4, 'a request');
  } catch (e) {
    if (e instanceof BrokeOff && incoming.drained) return undefined;
    throw e;
  }
  const n = length.readUInt32BE(0);
  if (n > maxTextBytes) throw new Error('a request longer than any path');
  return (await incoming.take(n, 'a request')).toString('utf8');
}

export async function writeFrame(socket: Duplex, frame: Frame): Promise<void> {
  if (frame.kind === 'data') {
    await put(socket, header(kinds.data, frame.data.length));
    await put(socket, frame.data);
    return;
  }
  const payload = frame.kind === 'end' ? Buffer.from(frame.sha256, 'hex') : Buffer.from(frame.message.slice(0, 1000), 'utf8');
  await put(socket, Buffer.concat([header(kinds[frame.kind], payload.length), payload]));
}

export async function readFrame(incoming: Incoming): Promise<Frame> {
  const head = await incoming.take(5, 'a frame');
  const kind = head.readUInt8(0);
  const length = head.readUInt32BE(1);
  if (kind === kinds.data) {
    if (length > maxChunkBytes) throw new Error(`a frame of ${length} bytes, above ${maxChunkBytes}`);
    return { kind: 'data', data: await incoming.take(length, 'a frame') };
  }
  if (length > maxTextBytes) throw new Error('a frame longer than any message');
  const payload = await incoming.take(length, 'a frame');
  if (kind === kinds.end && length === 32) return { kind: 'end', sha256: payload.toString('hex') };
  if (kind === kinds.failed) return { kind: 'failed', message: payload.toString('utf8') };
  throw new Error(`an unknown frame (kind ${kind}, ${length} bytes)`);
}
