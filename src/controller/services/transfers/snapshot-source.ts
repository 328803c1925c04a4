import { randomUUID } from 'node:crypto';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { maxChunkBytes, type Response } from '../../../shared/link/messages.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import { manifestPart, transferDeadlines } from './transfer-deadlines.js';

/** A copy asks the Agent for this much at a time, and asks for more only once it is written. */
const rangeBytes = 4 * maxChunkBytes;
/** Files per SnapshotHashes: a part stays far below the link's largest message. */
const hashesPerPart = 1_000;

/** One ranged read's answer: its chunks in order, and the file's whole size as the Agent saw it. */
interface FileRange {
  chunks: Buffer[];
  total: number;
}

export interface SnapshotOptions {
  /** Quiesce a running server as its template says (a backup), or read it as it is (a migration's first copy). */
  quiesce: boolean;
  /**
   * Leave the files unread at the open (their sha256 empty in `entries`, unless the Agent knew it):
   * for a copy that checks each file against the sha256 the source computes as it sends it.
   */
  unhashed?: boolean;
}

/**
 * The Controller's side of a snapshot on a Node: the manifest the Agent answered, ranged reads of
 * its files, and a close that always reaches the Agent (which also closes by itself when the
 * lease runs out, so a Controller gone mid-copy leaves no quiesced server behind).
 */
export class SnapshotSource {
  private constructor(
    private readonly calls: NodeCalls,
    readonly nodeId: string,
    readonly id: string,
    readonly entries: ManifestEntry[],
  ) {}

  static async open(calls: NodeCalls, nodeId: string, serverId: string, options: SnapshotOptions): Promise<SnapshotSource> {
    const id = randomUUID();
    const entries: ManifestEntry[] = [];
    const take = (r: Response) => entries.push(...manifestPart(r));
    try {
      take(await calls.askNode(nodeId, { body: 'snapshotOpen', snapshotOpen: { serverId, snapshotId: id, quiesce: options.quiesce, leaseMs: transferDeadlines.leaseMs, unhashed: options.unhashed ?? false } }, {
        timeoutMs: transferDeadlines.openMs, onPart: take,
      }));
    } catch (e) {
      await closeSnapshot(calls, nodeId, id);
      throw e;
    }
    return new SnapshotSource(calls, nodeId, id, entries);
  }

  /**
   * One file's content, in chunks of at most 1 MiB, read 4 MiB at a time. The next range is asked
   * for as soon as one arrives, so the Agent reads it while the consumer writes this one: at most
   * two ranges are held.
   */
  async *read(entry: ManifestEntry): AsyncIterable<Buffer> {
    let pending: Promise<FileRange> | undefined = this.readRange(entry.path, 0);
    let offset = 0;
    try {
      while (pending) {
        const range: FileRange = await pending;
        const end = offset + range.chunks.reduce((n, c) => n + c.length, 0);
        pending = end > offset && end < range.total ? this.readRange(entry.path, end) : undefined;
        for (const chunk of range.chunks) if (chunk.length > 0) yield chunk;
        offset = end;
      }
    } finally {
      // A consumer that stops early leaves the read ahead to finish unobserved, not to fail loudly.
      pending?.catch(() => undefined);
    }
  }

  private async readRange(path: string, offset: number): Promise<FileRange> {
    const chunks: Buffer[] = [];
    let total = 0;
    const take = (r: Response) => {
      if (r.payload !== 'fileChunk') return;
      chunks.push(r.fileChunk.data);
      total = Number(r.fileChunk.totalBytes);
    };
    take(await this.calls.askNode(this.nodeId, {
      body: 'snapshotRead', snapshotRead: { snapshotId: this.id, path, chunkBytes: maxChunkBytes, offset, length: rangeBytes },
    }, { timeoutMs: agentDeadlines.disk, onPart: take }));
    return { chunks, total };
  }

  /** Tells the Agent the sha256 of files it sent without hashing them (SnapshotHashes), in parts. */
  async tellHashes(files: readonly { path: string; sha256: string }[]): Promise<void> {
    for (let at = 0; at < files.length; at += hashesPerPart) {
      await this.calls.askNode(this.nodeId, {
        body: 'snapshotHashes', snapshotHashes: { snapshotId: this.id, files: files.slice(at, at + hashesPerPart) },
      }, { timeoutMs: agentDeadlines.quick });
    }
  }

  close(): Promise<void> {
    return closeSnapshot(this.calls, this.nodeId, this.id);
  }
}

/** Best effort: an Agent that cannot be told closes the snapshot itself when its lease runs out. */
async function closeSnapshot(calls: NodeCalls, nodeId: string, snapshotId: string): Promise<void> {
  await calls.askNode(nodeId, { body: 'snapshotClose', snapshotClose: { snapshotId } }, { timeoutMs: agentDeadlines.quick }).catch(() => undefined);
}
