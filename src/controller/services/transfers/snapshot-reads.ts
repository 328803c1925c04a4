import { randomBytes, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import type { Logger } from '../../../shared/logger.js';
import { PeerUnreachable, PullConnection, type PeerAddress } from '../../../shared/peer/pull-client.js';
import { connectionsPerGrant, grantKeyBytes } from '../../../shared/peer/tls-psk.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import { peerConnectTimeoutMs } from './peer-copy.js';
import type { SnapshotSource } from './snapshot-source.js';

/** The way a file came: straight from the Agent, or in messages over its link. */
export const readPaths = ['direct', 'link'] as const;
export type ReadPath = (typeof readPaths)[number];
/** Told the bytes of each file read, and their path (for `cairn_backup_read_bytes_total`). */
export type ReadCount = (path: ReadPath, bytes: number) => void;

/** How long the grant lets the Controller open connections: it opens them at the first files. */
const grantTtlMs = 60_000;

/**
 * Where the Controller reads a snapshot's files from for its own store: straight from the Agent's
 * snapshot server (the one other Agents pull from in a migration: TLS with a pre-shared key only
 * this Controller and that Agent know, frames of 1 MiB, the file's sha256 at its end), which costs
 * both sides far less CPU per GiB than gRPC messages over the link. The files come without their
 * sha256 (the store hashes what arrives), and `tellHashes` gives the Agent those hashes afterwards
 * for its next scan: the Agent reads the world once and hashes none of it. When the Agent cannot be
 * reached that way (no address, a firewall, an Agent too old to serve), or a connection breaks,
 * that file and every later one of this snapshot go through the link as before.
 */
export class SnapshotReads {
  private readonly idle: PullConnection[] = [];
  private readonly connections = new Set<PullConnection>();
  private readonly stopping = new AbortController();
  /** Files read whole straight from the Agent, whose hashes it did not compute. */
  private readonly readWhole = new Set<string>();

  private constructor(private readonly snapshot: SnapshotSource, private peer: PeerAddress | undefined, private readonly logger: Logger, private readonly count: ReadCount) {
    // Each connection being opened listens on it until its handshake is done: a backup opens up to a grant's worth at once.
    setMaxListeners(connectionsPerGrant, this.stopping.signal);
  }

  /** Asks the Agent to serve the snapshot to this Controller; reads go through the link if it cannot. */
  static async open(calls: NodeCalls, snapshot: SnapshotSource, host: string, logger: Logger, count: ReadCount): Promise<SnapshotReads> {
    if (!host) return new SnapshotReads(snapshot, undefined, logger, count);
    const grantId = randomUUID();
    const key = randomBytes(grantKeyBytes);
    try {
      const serving = await calls.askNode(snapshot.nodeId, {
        body: 'snapshotServe', snapshotServe: { snapshotId: snapshot.id, grantId, key, ttlMs: grantTtlMs, unhashed: true },
      }, { timeoutMs: agentDeadlines.quick });
      if (serving.payload !== 'snapshotServing') throw new Error('the Agent answered SnapshotServe without its port');
      return new SnapshotReads(snapshot, { host, port: serving.snapshotServing.port, grantId, key, connectTimeoutMs: peerConnectTimeoutMs }, logger, count);
    } catch (err) {
      logger.warn({ err, nodeId: snapshot.nodeId }, 'the Agent cannot serve its snapshot to the Controller; its files come through the link');
      return new SnapshotReads(snapshot, undefined, logger, count);
    }
  }

  /**
   * Hands `store` the content of one file and answers what it answers. A read straight from the
   * Agent that fails as unreachable is given to `store` again through the link, so `store` must
   * leave nothing behind when its content fails (the blob stores do).
   */
  async put<T>(entry: ManifestEntry, store: (content: AsyncIterable<Buffer>) => Promise<T>): Promise<T> {
    if (this.peer) {
      try {
        return await store(this.direct(entry.path));
      } catch (err) {
        if (!(err instanceof PeerUnreachable)) throw err;
        this.fallBack(err);
      }
    }
    return store(this.counted('link', this.snapshot.read(entry)));
  }

  private async *counted(path: ReadPath, content: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    for await (const chunk of content) {
      this.count(path, chunk.length);
      yield chunk;
    }
  }

  /** Once, however many reads under way break off with it. */
  private fallBack(err: PeerUnreachable): void {
    if (!this.peer) return;
    this.logger.warn({ err, nodeId: this.snapshot.nodeId }, 'reading a snapshot straight from its Agent broke off; its files come through the link');
    this.peer = undefined;
  }

  /**
   * Tells the Agent the sha256 of the files it sent whole without hashing them (`entries` as
   * stored, each with the hash of what arrived), so its next scan reads only what changed since.
   * Best effort: an Agent not told hashes those files again at its next backup.
   */
  async tellHashes(entries: readonly ManifestEntry[]): Promise<void> {
    const files = entries.filter((e) => e.sha256 && this.readWhole.has(e.path)).map((e) => ({ path: e.path, sha256: e.sha256 }));
    try {
      await this.snapshot.tellHashes(files);
    } catch (err) {
      this.logger.warn({ err, nodeId: this.snapshot.nodeId }, 'the Agent could not be told the hashes of the files it sent; its next backup hashes them again');
    }
  }

  close(): void {
    this.stopping.abort();
    for (const connection of this.connections) connection.close();
    this.connections.clear();
    this.idle.length = 0;
  }

  /** One file's bytes over a connection of the pool; the connection goes back to it once the file's answer ended. */
  private async *direct(path: string): AsyncIterable<Buffer> {
    const connection = this.idle.pop() ?? await this.connect();
    let ended = false;
    let failed: string | undefined;
    try {
      // Each frame in a buffer of its own: the store's streams may still hold it when the next arrives.
      for await (const frame of connection.file(path, true)) {
        if (frame.kind === 'data') {
          this.count('direct', frame.data.length);
          yield frame.data;
        }
        else if (frame.kind === 'failed') failed = frame.message;
        ended = frame.kind !== 'data';
      }
    } catch (err) {
      throw err instanceof PeerUnreachable ? err : new PeerUnreachable(`the Agent's connection broke off (${err instanceof Error ? err.message : String(err)})`);
    } finally {
      if (ended && failed === undefined) this.readWhole.add(path);
      if (ended && !this.stopping.signal.aborted) this.idle.push(connection);
      else {
        connection.close();
        this.connections.delete(connection);
      }
    }
    if (failed !== undefined) throw new Error(`${path}: the Agent could not send it (${failed})`);
  }

  private async connect(): Promise<PullConnection> {
    if (!this.peer) throw new PeerUnreachable('the Agent is not read directly any more');
    const connection = await PullConnection.open(this.peer, this.stopping.signal);
    this.connections.add(connection);
    return connection;
  }
}
