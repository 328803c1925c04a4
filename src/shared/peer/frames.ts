import type { Duplex } from 'node:stream';
import { Arrival, BrokeOff } from './arrival.js';

/**
 * The little protocol two Agents speak over their TLS connection. The puller asks for one file at
 * a time (`ask`: its length, then its path as UTF-8); the server answers frames of a kind byte
 * and a length: the file's bytes in pieces of at most 1 MiB, then its end with the sha256 of every
 * byte sent (none, an empty end, to a reader whose grant said it hashes for itself), or a failure
 * with a message.
 */
export type Frame =
  | { kind: 'data'; data: Buffer }
  /** `sha256` is '' when the server sent none (an unhashed grant). */
  | { kind: 'end'; sha256: string }
  | { kind: 'failed'; message: string };

export const frameKinds = { data: 1, end: 2, failed: 3 } as const;
/** A frame's kind byte and its length. */
export const headerBytes = 5;
/** A path or a message longer than this is not one this protocol sends. */
export const maxTextBytes = 64 * 1024;

/** The socket is paused while this much has arrived unread, so a slow consumer holds at most about this much. */
const highWaterBytes = 2 * 1024 * 1024;

/**
 * What arrives on a socket, taken a given number of bytes at a time. (A TLS socket's own `read(n)`
 * stops filling at its first high-water mark, whatever `n` asks for.)
 */
export class Incoming {
  private chunks: Buffer[] = [];
  private length = 0;
  private readonly arrival: Arrival;

  constructor(private readonly socket: Duplex) {
    this.arrival = new Arrival(socket);
    socket.on('data', (data: Buffer) => {
      this.chunks.push(data);
      this.length += data.length;
      if (this.length >= highWaterBytes) socket.pause();
      this.arrival.notify();
    });
  }

  /** Whether the peer ended the connection with nothing left unread. */
  get drained(): boolean {
    return this.arrival.ended && this.length === 0;
  }

  /** Exactly `n` bytes, waiting as needed; BrokeOff when the connection ends first. */
  async take(n: number, what: string): Promise<Buffer> {
    while (this.length < n) {
      this.socket.resume();
      await this.arrival.more(what);
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
  const b = Buffer.allocUnsafe(headerBytes);
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

/**
 * Sends a frame; settles once the socket is done with its bytes (encrypted and handed on), so
 * the caller may then fill a data frame's buffer again. A sender that keeps a few frames in flight
 * is held back by these settling, not by the socket's buffer.
 */
export function writeFrame(socket: Duplex, frame: Frame): Promise<void> {
  const payload = frame.kind === 'data' ? frame.data : frame.kind === 'end' ? Buffer.from(frame.sha256, 'hex') : Buffer.from(frame.message.slice(0, 1000), 'utf8');
  if (frame.kind === 'end' && payload.length !== 0 && payload.length !== 32) throw new Error(`not a sha256: ${frame.sha256.slice(0, 80)}`);
  return new Promise<void>((resolve, reject) => {
    socket.cork();
    socket.write(header(frameKinds[frame.kind], payload.length));
    socket.write(payload, (e) => (e ? reject(new BrokeOff(`the peer read what was sent (${e.message})`)) : resolve()));
    socket.uncork();
  });
}
