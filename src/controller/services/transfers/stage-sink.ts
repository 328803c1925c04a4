import { createHash, randomUUID } from 'node:crypto';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { maxChunkBytes, type RequestBody, type Response } from '../../../shared/link/messages.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import { manifestPart, transferDeadlines } from './transfer-deadlines.js';

export interface CommitSoftware {
  template: string;
  version: string;
  build?: string;
}

/**
 * The Controller's side of a stage on a Node: files written in chunks of at most 1 MiB with one
 * in flight, each checked by the Agent against its sha256 on the last chunk; then a commit that
 * makes the stage the server's files, or an abort. The Agent drops a stage whose lease runs out.
 */
export class StageSink {
  private constructor(
    private readonly calls: NodeCalls,
    readonly nodeId: string,
    readonly serverId: string,
    readonly id: string,
  ) {}

  static async begin(calls: NodeCalls, nodeId: string, serverId: string): Promise<StageSink> {
    const id = randomUUID();
    await calls.askNode(nodeId, { body: 'stageBegin', stageBegin: { stageId: id, serverId, leaseMs: transferDeadlines.leaseMs } }, { timeoutMs: agentDeadlines.disk });
    return new StageSink(calls, nodeId, serverId, id);
  }

  /** A stage filled by the Agent from a backup kept on that Node (checksums checked there). */
  static async fromLocal(calls: NodeCalls, nodeId: string, serverId: string, destinationPath: string, backupId: string): Promise<StageSink> {
    const id = randomUUID();
    await calls.askNode(nodeId, {
      body: 'stageFromLocal', stageFromLocal: { stageId: id, serverId, destinationPath, backupId, leaseMs: transferDeadlines.leaseMs },
    }, { timeoutMs: transferDeadlines.commitMs });
    return new StageSink(calls, nodeId, serverId, id);
  }

  private ask(body: RequestBody, timeoutMs: number = agentDeadlines.disk): Promise<Response> {
    return this.calls.askNode(this.nodeId, body, { timeoutMs });
  }

  async directory(entry: ManifestEntry): Promise<void> {
    await this.ask({ body: 'stageWrite', stageWrite: { ...emptyWrite(this.id, entry.path), directory: true, mode: entry.mode } });
  }

  /**
   * Writes one file. The sha256 sent with the last chunk is the manifest's when `expectManifest`
   * (the content must be what the manifest promised: a backup), else that of the bytes that went
   * through (a file that changed while it was read is staged as read, and a later pass fixes it).
   * Answers the bytes written.
   */
  async writeFile(entry: ManifestEntry, content: AsyncIterable<Buffer>, expectManifest: boolean): Promise<number> {
    const hash = createHash('sha256');
    let offset = 0;
    let pending: Buffer = Buffer.alloc(0);
    const send = (data: Buffer) => this.ask({ body: 'stageWrite', stageWrite: { ...emptyWrite(this.id, entry.path), offset, data } });
    for await (const piece of content) {
      hash.update(piece);
      pending = pending.length ? Buffer.concat([pending, piece]) : piece;
      while (pending.length >= maxChunkBytes) {
        const chunk = pending.subarray(0, maxChunkBytes);
        pending = pending.subarray(maxChunkBytes);
        await send(chunk);
        offset += chunk.length;
      }
    }
    const size = offset + pending.length;
    const sha256 = expectManifest ? entry.sha256 : hash.digest('hex');
    await this.ask({ body: 'stageWrite', stageWrite: { ...emptyWrite(this.id, entry.path), offset, data: pending, last: true, sha256, mode: entry.mode, size } });
    return size;
  }

  async remove(path: string): Promise<void> {
    await this.ask({ body: 'stageRemove', stageRemove: { stageId: this.id, path } });
  }

  async scan(): Promise<ManifestEntry[]> {
    const entries: ManifestEntry[] = [];
    const take = (r: Response) => entries.push(...manifestPart(r));
    take(await this.calls.askNode(this.nodeId, { body: 'stageScan', stageScan: { stageId: this.id } }, { timeoutMs: transferDeadlines.openMs, onPart: take }));
    return entries;
  }

  async commit(templateJson: string, software: CommitSoftware): Promise<void> {
    await this.ask({
      body: 'stageCommit',
      stageCommit: { stageId: this.id, serverId: this.serverId, templateJson, software: { template: software.template, version: software.version, build: software.build ?? '' } },
    }, transferDeadlines.commitMs);
  }

  /** Whether the Node completed the stage's commit (waiting for one under way there to end). */
  static async committed(calls: NodeCalls, nodeId: string, stageId: string): Promise<boolean> {
    const answer = await calls.askNode(nodeId, { body: 'stageCommitted', stageCommitted: { stageId } }, { timeoutMs: transferDeadlines.commitMs });
    if (answer.payload !== 'stageCommitState') throw new Error('the Agent answered StageCommitted without its state');
    return answer.stageCommitState.committed;
  }

  /** Best effort: an Agent that cannot be told drops the stage when its lease runs out. */
  async abort(): Promise<void> {
    await this.ask({ body: 'stageAbort', stageAbort: { stageId: this.id } }, agentDeadlines.quick).catch(() => undefined);
  }
}

const emptyWrite = (stageId: string, path: string) => ({
  stageId, path, offset: 0, data: Buffer.alloc(0), last: false, sha256: '', mode: 0, size: 0, directory: false,
});
