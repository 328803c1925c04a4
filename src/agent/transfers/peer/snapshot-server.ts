import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { hashKeyOf } from '../../../shared/backup/scan.js';
import type { Logger } from '../../../shared/logger.js';
import { maxChunkBytes } from '../../../shared/link/messages.js';
import { AgentError } from '../../errors.js';
import { openRegularFile, withPlace } from '../../files/beneath.js';
import { BrokeOff } from '../../../shared/peer/arrival.js';
import { Incoming, readAsk, writeFrame } from '../../../shared/peer/frames.js';
import { connectionsPerGrant, grantKeyBytes, peerIdleMs, pskTls } from '../../../shared/peer/tls-psk.js';

/** A connection's two read buffers, filled in turn. */
type ReadBuffers = [Buffer, Buffer];

/** The longest a grant lets new connections open. */
export const maxGrantMs = 5 * 60_000;

interface Grant {
  key: Buffer;
  expiresAt: number;
  connections: number;
  /** Its reader hashes what arrives itself: files end without their sha256 (SnapshotServe's `unhashed`). */
  unhashed: boolean;
}

/**
 * What a served snapshot is read from; `use` keeps the snapshot open while a file is sent;
 * `hashed` learns the sha256 of a file sent whole that did not change while it was read (its
 * `hashKeyOf` the same before and after), so the next scan need not read it again; `sentWhole`
 * is told the same of a file sent unhashed, whose sha256 the reader may tell later.
 */
export interface ServedSnapshot {
  root: string;
  files: ReadonlyMap<string, ManifestEntry>;
  use<R>(work: () => Promise<R>): Promise<R>;
  hashed(path: string, key: string, sha256: string): void;
  sentWhole(path: string, key: string): void;
}

/**
 * One open snapshot served to other Agents (SnapshotServe): a TLS listener that accepts only
 * connections proving a live grant's key, and answers the files of the snapshot's manifest,
 * nothing else. It closes with the snapshot, connections and all.
 */
export class SnapshotServer {
  private readonly grants = new Map<string, Grant>();
  private readonly sockets = new Set<TLSSocket>();
  /** Connections opened with an unhashed grant. */
  private readonly unhashed = new WeakSet<TLSSocket>();
  private readonly server: Server;

  private constructor(private readonly snapshot: ServedSnapshot, private readonly logger: Logger, private readonly now: () => number) {
    this.server = createServer({ ...pskTls, pskCallback: (socket, identity) => this.keyFor(socket, identity) }, (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      this.serve(socket).catch((err: unknown) => {
        if (!(err instanceof BrokeOff)) this.logger.warn({ err }, 'serving a snapshot to a peer failed');
        socket.destroy();
      });
    });
    // A handshake with an unknown or expired grant ends there; it is no failure of the server.
    this.server.on('tlsClientError', () => undefined);
  }

  static async listen(snapshot: ServedSnapshot, host: string, port: number, logger: Logger, now: () => number = Date.now): Promise<SnapshotServer> {
    const served = new SnapshotServer(snapshot, logger, now);
    served.server.listen(port, host);
    await once(served.server, 'listening');
    return served;
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  grant(id: string, key: Buffer, ttlMs: number, unhashed = false): void {
    if (key.length !== grantKeyBytes) throw new AgentError('INVALID_REQUEST', `key: ${grantKeyBytes} bytes.`);
    if (!/^[A-Za-z0-9-]{1,100}$/.test(id)) throw new AgentError('INVALID_REQUEST', 'grant_id: 1 to 100 letters, digits and dashes.');
    if (this.grants.has(id)) throw new AgentError('ALREADY_EXISTS', `A grant ${id} exists already.`);
    const ms = Math.min(Math.max(ttlMs, 1), maxGrantMs);
    this.grants.set(id, { key: Buffer.from(key), expiresAt: this.now() + ms, connections: 0, unhashed });
  }

  async close(): Promise<void> {
    this.grants.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The key of a grant that may still open a connection; null refuses the handshake. */
  private keyFor(socket: TLSSocket, identity: string): Buffer | null {
    const grant = this.grants.get(identity);
    if (!grant) return null;
    if (this.now() > grant.expiresAt || grant.connections >= connectionsPerGrant) {
      if (this.now() > grant.expiresAt) this.grants.delete(identity);
      return null;
    }
    grant.connections++;
    if (grant.unhashed) this.unhashed.add(socket);
    return grant.key;
  }

  /** Answers the files asked for, one after the other, until the puller closes. */
  private async serve(socket: TLSSocket): Promise<void> {
    socket.setTimeout(peerIdleMs, () => socket.destroy(new Error(`the peer was silent for ${peerIdleMs} ms`)));
    const incoming = new Incoming(socket);
    let buffers: ReadBuffers | undefined;
    for (;;) {
      const path = await readAsk(incoming);
      if (path === undefined) break;
      const entry = this.snapshot.files.get(path);
      if (!entry) {
        await writeFrame(socket, { kind: 'failed', message: `${path}: not a file of this snapshot` });
        continue;
      }
      buffers ??= [Buffer.allocUnsafe(maxChunkBytes), Buffer.allocUnsafe(maxChunkBytes)];
      const reading = buffers;
      await this.snapshot.use(() => this.sendFile(socket, path, reading, !this.unhashed.has(socket)));
    }
    socket.end();
  }

  /**
   * Sends the file as it is now (a running server's file may differ from its manifest entry), with
   * the sha256 of exactly the bytes sent when `hashed`. A file that cannot be read is answered as a failure.
   * It is read into the connection's two buffers in turn: one is filled while the socket encrypts
   * and sends the other, and neither is filled again before the socket is done with it (a new
   * buffer per MiB cost the source Agent more in garbage collection than the read).
   */
  private async sendFile(socket: TLSSocket, path: string, buffers: ReadBuffers, hashed: boolean): Promise<void> {
    let handle;
    try {
      handle = await withPlace(this.snapshot.root, path, 'read', openRegularFile);
    } catch (e) {
      await writeFrame(socket, { kind: 'failed', message: `${path}: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    try {
      const before = hashKeyOf(await handle.stat({ bigint: true }));
      const hash = hashed ? createHash('sha256') : undefined;
      const sent: [Promise<void>, Promise<void>] = [Promise.resolve(), Promise.resolve()];
      try {
        for (let position = 0, i = 0; ; i ^= 1) {
          await sent[i];
          const { bytesRead } = await handle.read(buffers[i], 0, maxChunkBytes, position);
          if (bytesRead === 0) break;
          const data = buffers[i].subarray(0, bytesRead);
          hash?.update(data);
          sent[i] = writeFrame(socket, { kind: 'data', data });
          // Awaited in turn (or below); a failure meanwhile must not go unhandled.
          sent[i].catch(() => undefined);
          position += bytesRead;
        }
      } finally {
        await Promise.allSettled(sent);
      }
      await Promise.all(sent);
      const sha256 = hash?.digest('hex') ?? '';
      await writeFrame(socket, { kind: 'end', sha256 });
      if (hashKeyOf(await handle.stat({ bigint: true })) !== before) return;
      if (hash) this.snapshot.hashed(path, before, sha256);
      else this.snapshot.sentWhole(path, before);
    } finally {
      await handle.close();
    }
  }
}
