import { connect, type Socket } from 'node:net';
import { RuntimeError } from './errors.js';
import { readFrames } from './frame-reader.js';
import { encodeFrame, parseMessage, ProtocolError, type ShimEvent, type ShimReply, type ShimRequest } from './shim-protocol.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type ShimRequestBody = DistributiveOmit<ShimRequest, 'id'>;

/** Which reply each request expects. */
interface ReplyTypes {
  status: 'status';
  attach: 'attached';
  input: 'ok';
  stop: 'exited';
  kill: 'exited';
  release: 'ok';
}

export type ReplyFor<B extends ShimRequestBody> = Extract<ShimReply, { type: ReplyTypes[B['type']] }>;

const expectedReply: ReplyTypes = { status: 'status', attach: 'attached', input: 'ok', stop: 'exited', kill: 'exited', release: 'ok' };

interface Pending {
  expect: ShimReply['type'];
  resolve: (reply: ShimReply) => void;
  reject: (error: RuntimeError) => void;
  timer: NodeJS.Timeout;
}

/** One connection to a shim: requests correlated by id with deadlines, events handed to a listener. */
export class ShimConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private eventListener: (event: ShimEvent) => void = () => {};
  private closeListener: (closedByUs: boolean) => void = () => {};
  private closedByUs = false;

  private constructor(private readonly socket: Socket) {
    readFrames(
      socket,
      (frame) => this.receive(frame),
      () => this.fail(new RuntimeError('protocol', 'the shim sent a frame over the size limit')),
    );
    socket.on('error', (error) => this.fail(new RuntimeError('shim_unavailable', `shim connection failed: ${error.message}`, { cause: error })));
    socket.on('close', () => {
      this.rejectAll(new RuntimeError('shim_unavailable', 'the shim closed the connection'));
      this.closeListener(this.closedByUs);
    });
  }

  /** Connects, or fails with `shim_unavailable` when nothing answers at `path`. */
  static open(path: string, timeoutMs: number): Promise<ShimConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new RuntimeError('timeout', `no answer from the shim at ${path}`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new ShimConnection(socket));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(new RuntimeError('shim_unavailable', `cannot reach the shim at ${path}: ${error.message}`, { cause: error }));
      });
    });
  }

  onEvent(listener: (event: ShimEvent) => void): void {
    this.eventListener = listener;
  }

  /** Called once when the connection ends; `closedByUs` tells a `close()` from a lost shim. */
  onClose(listener: (closedByUs: boolean) => void): void {
    this.closeListener = listener;
  }

  request<B extends ShimRequestBody>(body: B, deadlineMs: number): Promise<ReplyFor<B>> {
    const id = this.nextId;
    this.nextId += 1;
    return new Promise<ShimReply>((resolve, reject) => {
      if (this.socket.destroyed) {
        reject(new RuntimeError('shim_unavailable', 'the shim connection is closed'));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RuntimeError('timeout', `the shim did not answer ${body.type} within ${deadlineMs} ms`));
      }, deadlineMs);
      this.pending.set(id, { expect: expectedReply[body.type], resolve, reject, timer });
      this.socket.write(encodeFrame({ ...body, id }));
    }) as Promise<ReplyFor<B>>;
  }

  close(): void {
    this.closedByUs = true;
    this.socket.destroy();
  }

  private receive(frame: string): void {
    let message;
    try {
      message = parseMessage(frame);
    } catch (error) {
      const reason = error instanceof ProtocolError ? error.message : String(error);
      this.fail(new RuntimeError('protocol', `the shim sent a bad frame: ${reason}`));
      return;
    }
    if (message.type === 'line' || message.type === 'exit') {
      this.eventListener(message);
      return;
    }
    if (message.id === null) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.type === 'error') {
      pending.reject(new RuntimeError(message.code === 'not_running' ? 'not_running' : 'protocol', `the shim refused: ${message.message}`));
    }
    else if (message.type !== pending.expect) pending.reject(new RuntimeError('protocol', `expected ${pending.expect}, got ${message.type}`));
    else pending.resolve(message);
  }

  private fail(error: RuntimeError): void {
    this.rejectAll(error);
    this.socket.destroy();
  }

  private rejectAll(error: RuntimeError): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}
