import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import type { Logger } from '../../../shared/logger.js';
import { maxChunkBytes } from '../../../shared/link/messages.js';
import { AgentError } from '../../errors.js';
import { openRegularFile, withPlace } from '../../files/beneath.js';
import { BrokeOff, Incoming, readAsk, writeFrame } from './frames.js';
import { grantKeyBytes, peerIdleMs, pskTls } from './tls-psk.js';

/** The longest a grant lets new connections open. */
export const maxGrantMs = 5 * 60_000;
/** Connections one grant may open: the puller's files in flight, with room for one retry each. */
const connectionsPerGrant = 8;

interface Grant {
  key: Buffer;
  expiresAt: number;
  connections: number;
}

/** What a served snapshot is read from; `use` keeps the snapshot open while a file is sent. */
export interface ServedSnapshot {
  root: string;
  files: ReadonlyMap<string, ManifestEntry>;
  use<R>(work: () => Promise<R>): Promise<R>;
}

/**
 * One open snapshot served to other Agents (SnapshotServe): a TLS listener that accepts only
 * connections proving a live grant's key, and answers the files of the snapshot's manifest,
 * nothing else. It closes with the snapshot, connections and all.
 */
export class SnapshotServer {
  private readonly grants = new Map<string, Grant>();
  private readonly sockets = new Set<TLSSocket>();
  private readonly server: Server;

  private constructor(private readonly snapshot: ServedSnapshot, private readonly logger: Logger, private readonly now: () => number) {
    this.server = createServer({ ...pskTls, pskCallback: (_socket, identity) => this.keyFor(identity) }, (socket) => {
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

  grant(id: string, key: Buffer, ttlMs: number): void {
    if (key.length !== grantKeyBytes) throw new AgentError('INVALID_REQUEST', `key: ${grantKeyBytes} bytes.`);
    if (!/^[A-Za-z0-9-]{1,100}$/.test(id)) throw new AgentError('INVALID_REQUEST', 'grant_id: 1 to 100 letters, digits and dashes.');
    if (this.grants.has(id)) throw new AgentError('ALREADY_EXISTS', `A grant ${id} exists already.`);
    const ms = Math.min(Math.max(ttlMs, 1), maxGrantMs);
    this.grants.set(id, { key: Buffer.from(key), expiresAt: this.now() + ms, connections: 0 });
  }

  async close(): Promise<void> {
    this.grants.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The key of a grant that may still open a connection; null refuses the handshake. */
  private keyFor(identity: string): Buffer | null {
    const grant = this.grants.get(identity);
    if (!grant) return null;
    if (this.now() > grant.expiresAt || grant.connections >= connectionsPerGrant) {
      if (this.now() > grant.expiresAt) this.grants.delete(identity);
      return null;
    }
    grant.connections++;
    return grant.key;
  }

  /** Answers the files asked for, one after the other, until the puller closes. */
  private async serve(socket: TLSSocket): Promise<void> {
    socket.setTimeout(peerIdleMs, () => socket.destroy(new Error(`the peer was silent for ${peerIdleMs} ms`)));
    const incoming = new Incoming(socket);
    for (;;) {
      const path = await readAsk(incoming);
      if (path === undefined) break;
      const entry = this.snapshot.files.get(path);
      if (!entry) {
        await writeFrame(socket, { kind: 'failed', message: `${path}: not a file of this snapshot` });
        continue;
      }
      await this.snapshot.use(() => this.sendFile(socket, path));
    }
    socket.end();
  }

  /**
   * Sends the file as it is now (a running server's file may differ from its manifest entry), with
   * the sha256 of exactly the bytes sent. A file that cannot be read is answered as a failure.
   */
  private async sendFile(socket: TLSSocket, path: string): Promise<void> {
    let handle;
    try {
      handle = await withPlace(this.snapshot.root, path, 'read', openRegularFile);
    } catch (e) {
      await writeFrame(socket, { kind: 'failed', message: `${path}: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    try {
      const hash = createHash('sha256');
      for (let position = 0; ;) {
        const buffer = Buffer.allocUnsafe(maxChunkBytes);
        const { bytesRead } = await handle.read(buffer, 0, maxChunkBytes, position);
        if (bytesRead === 0) break;
        const data = buffer.subarray(0, bytesRead);
        hash.update(data);
        await writeFrame(socket, { kind: 'data', data });
        position += bytesRead;
      }
      await writeFrame(socket, { kind: 'end', sha256: hash.digest('hex') });
    } finally {
      await handle.close();
    }
  }
}

