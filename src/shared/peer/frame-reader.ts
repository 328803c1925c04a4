import type { Duplex } from 'node:stream';
import { maxChunkBytes } from '../link/messages.js';
import { Arrival } from './arrival.js';
import { frameKinds, headerBytes, maxTextBytes, type Frame } from './frames.js';

/** Bytes the socket decrypts into at a time (tls.connect's `onread` buffer). */
const readBytes = 64 * 1024;
/** Whole frames held unread before the socket is paused: a slow stage holds about this many MiB per connection. */
const maxReady = 2;

interface Filling {
  kind: number;
  payload: Buffer;
  filled: number;
}

/**
 * The frames arriving on a puller's connection, parsed as the bytes arrive in one buffer of its
 * own (tls.connect's `onread`) and copied into buffers it reuses: a socket's `data` events make a
 * new buffer of each 16 KiB TLS record and the frames another of each MiB, a GiB of garbage per
 * GiB pulled, which the target Agent's garbage collector spent more on than the copy itself.
 * A data frame's bytes are the reader's again once `reuse` is called.
 */
export class FrameReader {
  readonly onread = { buffer: Buffer.allocUnsafe(readBytes), callback: (n: number, buffer: Buffer) => this.received(buffer.subarray(0, n)) };
  private readonly head = Buffer.allocUnsafe(headerBytes);
  private headFilled = 0;
  private current?: Filling;
  private readonly ready: Frame[] = [];
  private readonly spare: Buffer[] = [];
  private socket?: Duplex;
  private arrival?: Arrival;

  /** Starts watching the socket's end; its bytes come through `onread`, given to tls.connect. */
  attach(socket: Duplex): void {
    this.socket = socket;
    this.arrival = new Arrival(socket);
  }

  /** The next whole frame, waiting as needed; BrokeOff when the connection ends first. */
  async next(what: string): Promise<Frame> {
    while (this.ready.length === 0) {
      this.socket?.resume();
      await this.arrival?.more(what);
    }
    const frame = this.ready.shift()!;
    if (this.ready.length < maxReady) this.socket?.resume();
    return frame;
  }

  /** Takes back a data frame's buffer, once its bytes are written. */
  reuse(frame: Frame): void {
    if (frame.kind === 'data' && frame.data.buffer.byteLength === maxChunkBytes && this.spare.length < maxReady + 1) {
      this.spare.push(Buffer.from(frame.data.buffer, 0, maxChunkBytes));
    }
  }

  /** Takes what arrived; false pauses the socket while enough whole frames wait. */
  private received(bytes: Buffer): boolean {
    try {
      for (let at = 0; at < bytes.length;) at += this.current ? this.fill(this.current, bytes, at) : this.fillHead(bytes, at);
    } catch (e) {
      this.socket?.destroy(e as Error);
      this.arrival?.stop(e as Error);
      return false;
    }
    this.arrival?.notify();
    return this.ready.length < maxReady;
  }

  private fillHead(bytes: Buffer, at: number): number {
    const n = bytes.copy(this.head, this.headFilled, at, Math.min(bytes.length, at + headerBytes - this.headFilled));
    this.headFilled += n;
    if (this.headFilled === headerBytes) {
      this.headFilled = 0;
      this.begin(this.head.readUInt8(0), this.head.readUInt32BE(1));
    }
    return n;
  }

  private begin(kind: number, length: number): void {
    if (kind === frameKinds.data) {
      if (length > maxChunkBytes) throw new Error(`a frame of ${length} bytes, above ${maxChunkBytes}`);
      this.current = { kind, payload: (this.spare.pop() ?? Buffer.allocUnsafe(maxChunkBytes)).subarray(0, length), filled: 0 };
    } else {
      if (length > maxTextBytes) throw new Error('a frame longer than any message');
      this.current = { kind, payload: Buffer.allocUnsafe(length), filled: 0 };
    }
    if (length === 0) this.complete(this.current);
  }

  private fill(current: Filling, bytes: Buffer, at: number): number {
    const n = bytes.copy(current.payload, current.filled, at, Math.min(bytes.length, at + current.payload.length - current.filled));
    current.filled += n;
    if (current.filled === current.payload.length) this.complete(current);
    return n;
  }

  private complete({ kind, payload }: Filling): void {
    this.current = undefined;
    if (kind === frameKinds.data) this.ready.push({ kind: 'data', data: payload });
    else if (kind === frameKinds.end && (payload.length === 32 || payload.length === 0)) this.ready.push({ kind: 'end', sha256: payload.toString('hex') });
    else if (kind === frameKinds.failed) this.ready.push({ kind: 'failed', message: payload.toString('utf8') });
    else throw new Error(`an unknown frame (kind ${kind}, ${payload.length} bytes)`);
  }
}
