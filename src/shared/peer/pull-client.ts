import type { OnReadOpts } from 'node:net';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { FrameReader } from './frame-reader.js';
import { writeAsk, type Frame } from './frames.js';
import { grantKeyBytes, peerIdleMs, pskTls } from './tls-psk.js';

export interface PeerAddress {
  host: string;
  port: number;
  grantId: string;
  key: Buffer;
  connectTimeoutMs: number;
}

/**
 * No connection to the serving Agent, or one that broke off: the files then go through the
 * Controller's link instead. (The Agent answers it as PEER_UNREACHABLE.)
 */
export class PeerUnreachable extends Error {
  override name = 'PeerUnreachable';
}

export const unreachable = (address: Pick<PeerAddress, 'host' | 'port'>, why: string) =>
  new PeerUnreachable(`the Agent at ${address.host}:${address.port} ${why}`);

/**
 * One connection to an Agent serving a snapshot (from another Agent, or from the Controller): opened with the grant (TLS-PSK, see tls-psk.ts)
 * within the connect timeout, then asked for one file after the other.
 */
export class PullConnection {
  private constructor(private readonly socket: TLSSocket, private readonly frames: FrameReader) {
    frames.attach(socket);
  }

  static async open(address: PeerAddress, signal: AbortSignal): Promise<PullConnection> {
    if (address.key.length !== grantKeyBytes) throw new RangeError(`key: ${grantKeyBytes} bytes.`);
    const frames = new FrameReader();
    // tls.connect takes net's `onread` (Node's documentation says so; its typings leave it out).
    const options: ConnectionOptions & { onread: OnReadOpts } = {
      ...pskTls,
      onread: frames.onread,
      host: address.host,
      port: address.port,
      // The peer is proved by the key it shares, not by a certificate.
      checkServerIdentity: () => undefined,
      pskCallback: () => ({ psk: address.key, identity: address.grantId }),
    };
    const socket = connect(options);
    try {
      await connected(socket, address, signal);
    } catch (e) {
      socket.destroy();
      throw e;
    }
    socket.setTimeout(peerIdleMs, () => socket.destroy(unreachable(address, `was silent for ${peerIdleMs} ms`)));
    return new PullConnection(socket, frames);
  }

  /**
   * The frames of one file, up to and including its end or failure. A data frame's bytes are
   * valid until the next frame is asked for: its buffer then takes the frame after it. With
   * `keep` each frame has a buffer of its own, for a consumer that holds frames while it asks for
   * more (a stream's buffer).
   */
  async *file(path: string, keep = false): AsyncIterable<Frame> {
    await writeAsk(this.socket, path);
    for (;;) {
      const frame = await this.frames.next('a frame');
      yield frame;
      if (!keep) this.frames.reuse(frame);
      if (frame.kind !== 'data') return;
    }
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

/** Settles once the TLS handshake is done; PEER_UNREACHABLE on a refusal, a failed handshake or the timeout. */
function connected(socket: TLSSocket, address: PeerAddress, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(unreachable(address, `did not answer within ${address.connectTimeoutMs} ms`)), address.connectTimeoutMs);
    const onAbort = () => fail(signal.reason instanceof Error ? signal.reason : new Error('the request was given up'));
    const onError = (e: Error) => fail(unreachable(address, `could not be reached (${e.message})`));
    const onClose = () => fail(unreachable(address, 'closed the connection (no grant, or an expired one)'));
    const settle = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    function fail(e: Error) {
      settle();
      reject(e);
    }
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once('secureConnect', () => {
      settle();
      resolve();
    });
  });
}
