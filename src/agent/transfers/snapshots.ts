import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { shaPattern } from '../../shared/backup/blob-encoding.js';
import type { ManifestEntry } from '../../shared/backup/manifest.js';
import type { FileChunk, ResponsePayload } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { AgentError } from '../errors.js';
import type { RequestContext } from '../link/link-client.js';
import { holdIfAsked, scanServer, serverOf, type BackupHost } from './backup-host.js';
import { withPlace, openRegularFile } from '../files/beneath.js';
import { uploadBlob, type Uploaded } from './blob-upload.js';
import { readFileRange } from '../files/files.js';
import type { HashCaches } from './hash-caches.js';
import { checkId, leaseMsOf, Leases } from './leases.js';
import { answerManifest } from './manifest-parts.js';
import { SnapshotServer } from './peer/snapshot-server.js';
import type { Quiescer, Release } from './quiesce.js';
import { ReadHashes } from './read-hashes.js';

/** An upload reads the file this much at a time. */
const readBytes = 1024 * 1024;

interface Snapshot {
  serverId: string;
  root: string;
  /** The FILE entries of its manifest by path: only these can be read. */
  files: Map<string, ManifestEntry>;
  release?: Release;
  /** Set once the snapshot is served to another Agent (SnapshotServe). */
  peers?: Promise<SnapshotServer>;
  /** Hashes of its files learnt as the Controller reads them. */
  reads: ReadHashes;
  /**
   * Files sent whole and unchanged to a reader that hashes them itself, each with `hashKeyOf` it
   * while it was sent: the hashes the Controller tells back (SnapshotHashes) are kept for these.
   */
  sentWhole: Map<string, string>;
}

export interface SnapshotDeps {
  host: BackupHost;
  quiescer: Quiescer;
  caches: HashCaches;
  logger: Logger;
  /** Where other Agents reach this one: the address its listener for them binds to. */
  peerAddress: string;
}

export interface OpenInput {
  serverId: string;
  snapshotId: string;
  quiesce: boolean;
  leaseMs: number;
  /** List the files without reading them (SnapshotOpen's `unhashed`). */
  unhashed?: boolean;
}

/**
 * Open snapshots: a server's manifest, taken while the server is held still (when asked), and
 * reads of its files until the snapshot closes. However it closes (asked, its lease ran out, the
 * link went, the Agent stops) the server resumes exactly once.
 */
export class Snapshots {
  private readonly leases: Leases<Snapshot>;

  constructor(private readonly deps: SnapshotDeps) {
    this.leases = new Leases('snapshot', async (s) => {
      await s.peers?.then((served) => served.close(), () => undefined);
      await s.release?.();
    }, (err, id) => deps.logger.error({ err, snapshotId: id }, 'closing an expired snapshot failed'));
  }

  /** Opens the snapshot and answers its manifest in parts. */
  async open(input: OpenInput, ctx: Pick<RequestContext, 'sendPart' | 'signal'>): Promise<ResponsePayload> {
    const snapshotId = checkId('snapshot_id', input.snapshotId);
    if (this.leases.has(snapshotId)) throw new AgentError('ALREADY_EXISTS', `A snapshot ${snapshotId} is open already.`);
    const server = serverOf(this.deps.host, input.serverId);
    const release = await holdIfAsked(this.deps.quiescer, input.serverId, server, input.quiesce);
    let entries: ManifestEntry[];
    try {
      entries = await this.deps.caches.scan(input.serverId, (cache) => scanServer(server.root, cache, !input.unhashed));
      // Nobody waits for the answer any more: a snapshot opened now would only hold the server still.
      ctx.signal.throwIfAborted();
      const learn = this.learner(input.serverId, server.root);
      this.leases.add(snapshotId, {
        serverId: input.serverId, root: server.root, files: new Map(entries.filter((e) => e.type === 'FILE').map((e) => [e.path, e])), release, reads: new ReadHashes(learn), sentWhole: new Map(),
      }, leaseMsOf(input.leaseMs));
    } catch (e) {
      await release?.();
      throw e;
    }
    return answerManifest(entries, ctx);
  }

  /** Reads one file of the snapshot (or `length` bytes of it from `offset`) in chunks, every one but the last to `part`. */
  async read(input: { snapshotId: string; path: string; chunkBytes: number; offset: number; length: number }, part: (chunk: FileChunk) => void, signal: AbortSignal): Promise<FileChunk> {
    return this.leases.use(input.snapshotId, async (snapshot) => {
      if (!snapshot.files.has(input.path)) throw new AgentError('NOT_FOUND', 'path: not a file of this snapshot.');
      const followed = snapshot.reads.follow(input.path, input.offset);
      let around: [BigIntStats, BigIntStats] | undefined;
      const last = await readFileRange(snapshot.root, input.path, { offset: input.offset, length: input.length, chunkBytes: input.chunkBytes }, (chunk) => {
        followed.chunk(chunk);
        part(chunk);
      }, signal, undefined, (opened, after) => {
        around = [opened, after];
      });
      followed.chunk(last);
      if (around) followed.done(last, ...around);
      return last;
    });
  }

  /** Records the sha256 of a file of the server's, named by its path in the snapshot, for the next scan. */
  private learner(serverId: string, root: string): (path: string, key: string, sha256: string) => void {
    return (path, key, sha256) => this.deps.caches.remember(serverId, join(root, ...path.split('/')), key, sha256);
  }

  /**
   * Uploads one file of the snapshot to an object store with presigned requests (SnapshotUpload).
   * The snapshot stays open while it runs, however long the file takes.
   */
  async upload(input: { snapshotId: string; path: string; sha256: string; partBytes: number; partUrls: string[] }, signal: AbortSignal): Promise<Uploaded> {
    return this.leases.use(input.snapshotId, async (snapshot) => {
      if (!snapshot.files.has(input.path)) throw new AgentError('NOT_FOUND', 'path: not a file of this snapshot.');
      const handle = await withPlace(snapshot.root, input.path, 'read', openRegularFile);
      try {
        return await uploadBlob(handle.createReadStream({ autoClose: false, highWaterMark: readBytes }), input, signal);
      } finally {
        await handle.close();
      }
    });
  }

  /**
   * Lets the holder of the grant's key read the snapshot's files straight from this Agent
   * (SnapshotServe); answers the port they are served on. The listener is opened at the first
   * grant and closes with the snapshot.
   */
  async serve(input: { snapshotId: string; grantId: string; key: Buffer; ttlMs: number; unhashed?: boolean }): Promise<number> {
    return this.leases.use(input.snapshotId, async (snapshot) => {
      snapshot.peers ??= SnapshotServer.listen({
        root: snapshot.root,
        files: snapshot.files,
        use: (work) => this.leases.use(input.snapshotId, work),
        hashed: this.learner(snapshot.serverId, snapshot.root),
        sentWhole: (path, key) => snapshot.sentWhole.set(path, key),
      }, this.deps.peerAddress, 0, this.deps.logger);
      const served = await snapshot.peers.catch((e: unknown) => {
        throw new AgentError('PEER_UNREACHABLE', `cannot listen for other Agents on ${this.deps.peerAddress}: ${e instanceof Error ? e.message : String(e)}`);
      });
      served.grant(input.grantId, input.key, input.ttlMs, input.unhashed);
      return served.port;
    });
  }

  /**
   * Keeps the sha256 the Controller computed of files it read whole under an unhashed grant
   * (SnapshotHashes), for the next scan; a file not sent whole and unchanged that way is ignored.
   */
  async learn(input: { snapshotId: string; files: { path: string; sha256: string }[] }): Promise<void> {
    await this.leases.use(input.snapshotId, async (snapshot) => {
      const learn = this.learner(snapshot.serverId, snapshot.root);
      for (const { path, sha256 } of input.files) {
        const key = snapshot.sentWhole.get(path);
        if (key === undefined || !shaPattern.test(sha256)) continue;
        snapshot.sentWhole.delete(path);
        learn(path, key, sha256);
      }
    });
  }

  close(snapshotId: string): Promise<void> {
    return this.leases.release(snapshotId);
  }

  /** Closes every snapshot (the link went, or the Agent stops). */
  closeAll(): Promise<void> {
    return this.leases.releaseAll();
  }
}
